package dev.waybill.outbox.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.MessageChecks;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.Transport;

/**
 * The default {@link OutboxMessageFactory}: a time-ordered id, the type from
 * {@link dev.waybill.outbox.MessageType @MessageType}, the body from the {@link MessageSerializer},
 * and the checks on body size, headers and the outbox backlog.
 *
 * @since 0.1
 */
public final class DefaultOutboxMessageFactory implements OutboxMessageFactory {

	/** The property that limits body sizes, named in errors. */
	public static final String MAX_MESSAGE_BYTES_PROPERTY = "waybill.outbox.max-message-bytes";

	private final MessageSerializer serializer;

	private final long maxMessageBytes;

	private final Clock clock;

	private final @Nullable String sourceHost;

	private final OutboxBacklog backlog;

	private final long maxPending;

	private final LongSupplier maxHeaderBytes;

	/**
	 * Creates a factory.
	 * @param serializer serializes message bodies
	 * @param maxMessageBytes the largest body accepted, at least 1
	 * @param clock the clock for the sent time
	 * @param sourceHost the host name recorded with each message, or {@literal null}
	 * @param backlog the backlog figures the relay keeps current
	 * @param maxPending the most pending messages before building fails with
	 * {@link OutboxFullException}, 0 for no limit
	 * @param maxHeaderBytes the largest encoded header, read for each message, typically
	 * {@link Transport#maxHeaderBytes()}; it must answer without contacting the broker
	 */
	public DefaultOutboxMessageFactory(MessageSerializer serializer, long maxMessageBytes, Clock clock,
			@Nullable String sourceHost, OutboxBacklog backlog, long maxPending, LongSupplier maxHeaderBytes) {
		this.maxHeaderBytes = Objects.requireNonNull(maxHeaderBytes, "maxHeaderBytes must not be null");
		if (maxPending < 0) {
			throw new IllegalArgumentException("waybill.outbox.max-pending must be 0 (no limit) or more, was " + maxPending);
		}
		this.backlog = Objects.requireNonNull(backlog, "backlog must not be null");
		this.maxPending = maxPending;
		if (maxMessageBytes < 1) {
			throw new IllegalArgumentException(MAX_MESSAGE_BYTES_PROPERTY + " must be at least 1 byte, was " + maxMessageBytes);
		}
		this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
		this.maxMessageBytes = maxMessageBytes;
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.sourceHost = sourceHost;
	}

	@Override
	public OutboxMessage create(@Nullable String destination, Object message, Consumer<PublishOptions> customizer) {
		String type = MessageTypes.nameOf(requireMessage(message));
		if (destination != null && destination.isBlank()) {
			throw new InvalidMessageException(type, "the destination must not be blank", null);
		}
		if (this.maxPending > 0) {
			long pending = this.backlog.current().pendingMessages();
			if (pending >= this.maxPending) {
				throw new OutboxFullException(type, pending, this.maxPending);
			}
		}
		PublishOptions options = new PublishOptions();
		Objects.requireNonNull(customizer, "options must not be null").accept(options);
		checkHeaders(type, options.headers());
		byte[] body = serialize(type, message);
		UUID id = TimeOrderedUuids.next();
		String conversationId = options.conversationId() != null ? options.conversationId() : id.toString();
		Map<String, Object> headers = options.headers();
		List<String> supertypes = MessageTypes.supertypesOf(message.getClass());
		if (!supertypes.isEmpty() && !headers.containsKey(MessageTypes.SUPERTYPES_HEADER)) {
			headers = new LinkedHashMap<>(headers);
			headers.put(MessageTypes.SUPERTYPES_HEADER, String.join(",", supertypes));
			headers.put(MessageTypes.CLASS_HEADER, message.getClass().getName());
		}
		Instant sentAt = this.clock.instant();
		// The time-to-live counts from when the message is due: its not-before time, else now.
		MessageChecks.notBefore(type, options.notBefore());
		Instant expiresAt = MessageChecks.expiry(type, (options.notBefore() != null) ? options.notBefore() : sentAt,
				options.timeToLive());
		OutboxMessage built = new OutboxMessage(id, (destination != null) ? destination : type, options.routingKey(),
				type, this.serializer.contentType(), headers, body, options.correlationId(), conversationId,
				this.sourceHost, sentAt, options.notBefore(), expiresAt);
		MessageChecks.check(built, this.maxHeaderBytes.getAsLong());
		return built;
	}

	private byte[] serialize(String type, Object message) {
		byte[] body;
		try {
			body = this.serializer.serialize(message);
		}
		catch (Exception ex) {
			throw new InvalidMessageException(type, "the " + this.serializer.contentType()
					+ " serializer failed: " + ex.getMessage(), ex);
		}
		if (body.length > this.maxMessageBytes) {
			throw new InvalidMessageException(type, "the body is " + body.length + " bytes, over the limit of "
					+ this.maxMessageBytes + " bytes set by " + MAX_MESSAGE_BYTES_PROPERTY, null);
		}
		return body;
	}

	static Object requireMessage(@Nullable Object message) {
		if (message == null) {
			throw new InvalidMessageException(null, "the message must not be null", null);
		}
		return message;
	}

	private static void checkHeaders(String type, Map<String, Object> headers) {
		headers.forEach((name, value) -> {
			if (name == null || name.isBlank()) {
				throw new InvalidMessageException(type, "header names must not be blank", null);
			}
			if (!isHeaderValue(value)) {
				throw new InvalidMessageException(type, "header '" + MessageChecks.shown(name) + "' has a value of type "
						+ (value == null ? "null" : value.getClass().getName())
						+ "; header values must be a String, a Number or a Boolean", null);
			}
		});
	}

	private static boolean isHeaderValue(@Nullable Object value) {
		return value instanceof String || value instanceof Boolean || value instanceof Integer || value instanceof Long
				|| value instanceof Short || value instanceof Byte || value instanceof Double || value instanceof Float
				|| value instanceof BigDecimal || value instanceof BigInteger;
	}

}
