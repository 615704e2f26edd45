package dev.waybill.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Per-message options for {@link OutboxPublisher#publish(Object, java.util.function.Consumer)} and
 * {@link OutboxPublisher#send(String, Object, java.util.function.Consumer)}. Setters return
 * {@code this} so a lambda can chain them:
 * {@code publisher.publish(event, o -> o.routingKey("eu").header("tenant", "acme"))}.
 *
 * @since 0.1
 */
public final class PublishOptions {

	/**
	 * The AMQP header that carries a message's ordering key (see {@link #orderingKey(String)}), so
	 * consumers that are not Waybill can partition on it too.
	 * @since 0.1
	 */
	public static final String ORDERING_KEY_HEADER = "waybill-ordering-key";

	/**
	 * The AMQP header that carries the message id of the previous message of the same ordering
	 * key, set by the relay on a message it publishes in a run behind its predecessor (same key,
	 * destination and routing key, published just before it on the same channel without waiting
	 * for its confirm); absent on the first message of a run. A consumer uses it to detect a
	 * predecessor the broker refused: the relay publishes that one again, and then this one;
	 * Waybill's partitioned consumers hold such a delivery back until the predecessor arrives.
	 * @since 0.1
	 */
	public static final String ORDERING_PREVIOUS_HEADER = "waybill-ordering-previous";

	/**
	 * The AMQP header that carries the name of the store a message was written to (see
	 * {@link dev.waybill.outbox.store.WaybillStores}), set by the relay on every message of a store
	 * other than the default one; absent on the default store's. A Waybill consumer records and
	 * handles the message in its own store of that name.
	 * @since 0.1
	 */
	public static final String STORE_HEADER = "waybill-store";

	/** The longest ordering key, in characters. */
	public static final int MAX_ORDERING_KEY_LENGTH = 255;

	private final Map<String, Object> headers = new LinkedHashMap<>();

	private String routingKey = "";

	private @Nullable String correlationId;

	private @Nullable String conversationId;

	private @Nullable Instant notBefore;

	private @Nullable Duration timeToLive;

	/**
	 * Adds a header. Values must be a {@link String}, a {@link Number} or a {@link Boolean}, so
	 * they map onto AMQP header values; anything else fails the publish, as do a NUL character
	 * in the name or a string value, a name over 255 bytes of UTF-8, a NaN or infinite number, and
	 * headers that together would not fit in one AMQP frame (see {@link InvalidMessageException}).
	 * @param name the header name, must not be blank
	 * @param value the header value, must not be {@literal null}
	 * @return these options
	 */
	public PublishOptions header(String name, Object value) {
		this.headers.put(name, value);
		return this;
	}

	/**
	 * Adds every entry of {@code headers}, with the rules of {@link #header(String, Object)}.
	 * @param headers the headers to add, must not be {@literal null}
	 * @return these options
	 */
	public PublishOptions headers(Map<String, ?> headers) {
		this.headers.putAll(headers);
		return this;
	}

	/**
	 * Sets the routing key; empty by default, which fanout exchanges ignore.
	 * @param routingKey the routing key, must not be {@literal null}
	 * @return these options
	 */
	public PublishOptions routingKey(String routingKey) {
		this.routingKey = Objects.requireNonNull(routingKey, "routingKey must not be null");
		return this;
	}

	/**
	 * Sets the correlation id, e.g. the id of the request this message answers.
	 * @param correlationId the correlation id
	 * @return these options
	 */
	public PublishOptions correlationId(@Nullable String correlationId) {
		this.correlationId = correlationId;
		return this;
	}

	/**
	 * Sets the conversation id; by default a message starts a conversation named by its own id.
	 * @param conversationId the conversation id
	 * @return these options
	 */
	public PublishOptions conversationId(@Nullable String conversationId) {
		this.conversationId = conversationId;
		return this;
	}

	/**
	 * Schedules the message: the relay publishes it no earlier than {@code notBefore}. A scheduled
	 * message is written as a scope of its own, so it does not hold back the other messages of its
	 * transaction (they are published at once, and the order between them and it is not kept), and
	 * it can be cancelled on its own, see {@link OutboxPublisher#schedule(Object, Instant)}.
	 * A time before 0001-01-01T00:00:00Z or after 9999-12-31T23:59:59.999999Z, which the outbox
	 * table cannot hold, fails the publish with {@link InvalidMessageException}.
	 * @param notBefore the earliest delivery time, {@literal null} for as soon as committed
	 * @return these options
	 */
	public PublishOptions notBefore(@Nullable Instant notBefore) {
		this.notBefore = notBefore;
		return this;
	}

	/**
	 * Sets a time-to-live: once it has passed, the relay no longer publishes the message (its scope
	 * is recorded as {@code expired}, not dead), and a broker that received it drops it from the
	 * queues that hold it (AMQP {@code expiration}, set to the time left when it is published). It
	 * counts from the message's not-before time when it has one, else from when it is published. A
	 * message with a time-to-live is written as a scope of its own, like a scheduled one, so it
	 * expires alone. The expiry is computed on the publishing host's clock and checked on the
	 * relay's: keep the hosts' clocks synchronized. A time-to-live that would end after
	 * 9999-12-31T23:59:59.999999Z, the latest time the outbox table holds (e.g.
	 * {@code Duration.ofMillis(Long.MAX_VALUE)}), fails the publish with
	 * {@link InvalidMessageException}; leave it {@literal null} for a message that never expires.
	 * @param timeToLive how long the message stays deliverable, positive; {@literal null} for ever
	 * @return these options
	 * @throws IllegalArgumentException when {@code timeToLive} is zero or negative
	 * @since 0.1
	 */
	public PublishOptions timeToLive(@Nullable Duration timeToLive) {
		if (timeToLive != null && (timeToLive.isZero() || timeToLive.isNegative())) {
			throw new IllegalArgumentException("timeToLive must be positive, was " + timeToLive);
		}
		this.timeToLive = timeToLive;
		return this;
	}

	/**
	 * Orders this message with every other message of the same key: the relay publishes the
	 * transactions that wrote a key in their commit order, each after the previous one was
	 * confirmed, and a consumer handles a key's deliveries one at a time, in order (see the
	 * README's "Ordering" section for exactly what holds). Typically the id of the aggregate the
	 * message is about, e.g. {@code "Order#42"}. Messages without a key (the default) are
	 * unordered and relayed as fast as the relay can. The key travels as the
	 * {@value #ORDERING_KEY_HEADER} header.
	 * @param orderingKey the key, at most {@value #MAX_ORDERING_KEY_LENGTH} characters, not blank;
	 * {@literal null} removes it
	 * @return these options
	 * @since 0.1
	 */
	public PublishOptions orderingKey(@Nullable String orderingKey) {
		if (orderingKey == null) {
			this.headers.remove(ORDERING_KEY_HEADER);
			return this;
		}
		if (orderingKey.isBlank() || orderingKey.length() > MAX_ORDERING_KEY_LENGTH) {
			throw new IllegalArgumentException("orderingKey must be 1 to " + MAX_ORDERING_KEY_LENGTH
					+ " characters and not blank, was '" + orderingKey + "'");
		}
		this.headers.put(ORDERING_KEY_HEADER, orderingKey);
		return this;
	}

	/**
	 * Returns the time-to-live.
	 * @return the time-to-live, or {@literal null} when the message does not expire
	 * @since 0.1
	 */
	public @Nullable Duration timeToLive() {
		return this.timeToLive;
	}

	/**
	 * Returns the ordering key.
	 * @return the key, or {@literal null} for an unordered message
	 * @since 0.1
	 */
	public @Nullable String orderingKey() {
		return (this.headers.get(ORDERING_KEY_HEADER) instanceof String key) ? key : null;
	}

	/**
	 * Returns the headers added so far, in the order they were added.
	 * @return an unmodifiable view of the headers
	 */
	public Map<String, Object> headers() {
		return Collections.unmodifiableMap(this.headers);
	}

	/**
	 * Returns the routing key.
	 * @return the routing key, empty when none was set
	 */
	public String routingKey() {
		return this.routingKey;
	}

	/**
	 * Returns the correlation id.
	 * @return the correlation id, or {@literal null}
	 */
	public @Nullable String correlationId() {
		return this.correlationId;
	}

	/**
	 * Returns the conversation id.
	 * @return the conversation id, or {@literal null}
	 */
	public @Nullable String conversationId() {
		return this.conversationId;
	}

	/**
	 * Returns the not-before time.
	 * @return the earliest delivery time, or {@literal null}
	 */
	public @Nullable Instant notBefore() {
		return this.notBefore;
	}

}
