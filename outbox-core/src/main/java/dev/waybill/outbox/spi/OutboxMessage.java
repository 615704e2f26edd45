package dev.waybill.outbox.spi;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One message of an outbox scope, as stored in {@code outbox_message} and handed to the transport:
 * the envelope plus the serialized body.
 *
 * @param messageId unique, time-ordered id; consumers deduplicate on it
 * @param destination the exchange to publish to
 * @param routingKey the routing key, empty when none
 * @param messageType the message type name (see {@link dev.waybill.outbox.MessageType})
 * @param contentType the MIME type of {@code body}, e.g. {@code application/json}
 * @param headers the headers; values are {@code String}s, {@code Boolean}s, numbers ({@code Integer},
 * {@code Long}, {@code Short}, {@code Byte}, {@code Double}, {@code Float}, {@code BigDecimal},
 * {@code BigInteger}), timestamps ({@link java.util.Date}), byte arrays, and {@code List}s and
 * {@code Map}s with {@code String} keys (AMQP arrays and nested tables) of such values, in which
 * {@literal null} is allowed. The outbox stores each with its type and reads it back unchanged,
 * strings with U+0000 included; any other value is stored as its {@code toString()}. What
 * applications publish through {@link dev.waybill.outbox.OutboxPublisher} is limited to strings,
 * numbers and booleans; the other types carry the headers of messages the inbox forwards
 * @param body the serialized message
 * @param correlationId the correlation id, or {@literal null}
 * @param conversationId the conversation id, or {@literal null}
 * @param sourceHost the host that published the message, or {@literal null}
 * @param sentAt when the message was published
 * @param notBefore the earliest delivery time, or {@literal null}
 * @param expiresAt when the message expires: the relay does not publish it from then on (its scope is
 * recorded as expired) and the broker drops it then (AMQP {@code expiration}), or {@literal null}
 * for never; see {@link dev.waybill.outbox.PublishOptions#timeToLive(java.time.Duration)}
 * @since 0.1
 */
public record OutboxMessage(UUID messageId, String destination, String routingKey, String messageType,
		String contentType, Map<String, Object> headers, byte[] body, @Nullable String correlationId,
		@Nullable String conversationId, @Nullable String sourceHost, Instant sentAt, @Nullable Instant notBefore,
		@Nullable Instant expiresAt) {

	/**
	 * Checks the required components and copies the headers.
	 */
	public OutboxMessage {
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(destination, "destination must not be null");
		Objects.requireNonNull(routingKey, "routingKey must not be null");
		Objects.requireNonNull(messageType, "messageType must not be null");
		Objects.requireNonNull(contentType, "contentType must not be null");
		Objects.requireNonNull(body, "body must not be null");
		Objects.requireNonNull(sentAt, "sentAt must not be null");
		headers = Map.copyOf(headers);
	}

	/**
	 * Creates a message that never expires.
	 * @param messageId unique, time-ordered id
	 * @param destination the exchange to publish to
	 * @param routingKey the routing key, empty when none
	 * @param messageType the message type name
	 * @param contentType the MIME type of {@code body}
	 * @param headers the headers
	 * @param body the serialized message
	 * @param correlationId the correlation id, or {@literal null}
	 * @param conversationId the conversation id, or {@literal null}
	 * @param sourceHost the host that published the message, or {@literal null}
	 * @param sentAt when the message was published
	 * @param notBefore the earliest delivery time, or {@literal null}
	 */
	public OutboxMessage(UUID messageId, String destination, String routingKey, String messageType,
			String contentType, Map<String, Object> headers, byte[] body, @Nullable String correlationId,
			@Nullable String conversationId, @Nullable String sourceHost, Instant sentAt, @Nullable Instant notBefore) {
		this(messageId, destination, routingKey, messageType, contentType, headers, body, correlationId,
				conversationId, sourceHost, sentAt, notBefore, null);
	}

	/**
	 * Returns this message with one more header (or another value of it).
	 * @param name the header's name
	 * @param value its value
	 * @return the message with the header
	 * @since 0.1
	 */
	public OutboxMessage withHeader(String name, Object value) {
		Map<String, Object> headers = new HashMap<>(this.headers);
		headers.put(name, value);
		return new OutboxMessage(this.messageId, this.destination, this.routingKey, this.messageType, this.contentType,
				headers, this.body, this.correlationId, this.conversationId, this.sourceHost, this.sentAt, this.notBefore,
				this.expiresAt);
	}

	/**
	 * Tells whether this message is written as a scope of its own rather than with the other
	 * messages of its transaction: a scheduled message (a not-before time) or one that expires, so
	 * that it neither holds back its siblings nor is held back, and is cancelled or expires alone.
	 * @return whether the message stands alone
	 * @since 0.1
	 */
	public boolean standsAlone() {
		return this.notBefore != null || this.expiresAt != null;
	}

	/**
	 * Tells whether this message has expired at {@code now}.
	 * @param now the current time
	 * @return whether it has an expiry time that is not after {@code now}
	 * @since 0.1
	 */
	public boolean expiredAt(Instant now) {
		return this.expiresAt != null && !this.expiresAt.isAfter(now);
	}

	/**
	 * Returns the ordering key, the {@value dev.waybill.outbox.PublishOptions#ORDERING_KEY_HEADER}
	 * header.
	 * @return the key, or {@literal null} for an unordered message
	 * @since 0.1
	 */
	public @Nullable String orderingKey() {
		return (this.headers.get(dev.waybill.outbox.PublishOptions.ORDERING_KEY_HEADER) instanceof String key
				&& !key.isEmpty()) ? key : null;
	}

	@Override
	public String toString() {
		return "OutboxMessage[" + this.messageId + " " + this.messageType + " -> " + this.destination + ", "
				+ this.body.length + " bytes]";
	}

}
