package dev.waybill.outbox.support;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;

/**
 * The {@link OutboxPublisher} that buffers messages in the current Spring transaction and has an
 * {@link OutboxWriter} write them just before it commits.
 *
 * @since 0.1
 */
public final class DefaultOutboxPublisher implements OutboxPublisher, ConsumerOutbox {

	/** The property that limits body sizes, named in errors. */
	public static final String MAX_MESSAGE_BYTES_PROPERTY = "waybill.outbox.max-message-bytes";

	private final OutboxWriter writer;

	private final MessageSerializer serializer;

	private final RelayWakeUp wakeUp;

	private final long maxMessageBytes;

	private final Clock clock;

	private final @Nullable String sourceHost;

	private final OutboxBacklog backlog;

	private final long maxPending;

	private final LongSupplier maxHeaderBytes;

	/**
	 * Creates a publisher.
	 * @param writer writes each transaction's messages before it commits
	 * @param serializer serializes message bodies
	 * @param wakeUp signalled after each commit that wrote messages
	 * @param maxMessageBytes the largest body accepted, at least 1
	 * @param clock the clock for the sent time
	 * @param sourceHost the host name recorded with each message, or {@literal null}
	 */
	public DefaultOutboxPublisher(OutboxWriter writer, MessageSerializer serializer, RelayWakeUp wakeUp,
			long maxMessageBytes, Clock clock, @Nullable String sourceHost) {
		this(writer, serializer, wakeUp, maxMessageBytes, clock, sourceHost, new OutboxBacklog(), 0);
	}

	/**
	 * Creates a publisher that refuses messages while the backlog is at {@code maxPending}.
	 * @param writer writes each transaction's messages before it commits
	 * @param serializer serializes message bodies
	 * @param wakeUp signalled after each commit that wrote messages
	 * @param maxMessageBytes the largest body accepted, at least 1
	 * @param clock the clock for the sent time
	 * @param sourceHost the host name recorded with each message, or {@literal null}
	 * @param backlog the backlog figures the relay keeps current
	 * @param maxPending the most pending messages before publish fails with
	 * {@link OutboxFullException}, 0 for no limit
	 */
	public DefaultOutboxPublisher(OutboxWriter writer, MessageSerializer serializer, RelayWakeUp wakeUp,
			long maxMessageBytes, Clock clock, @Nullable String sourceHost, OutboxBacklog backlog, long maxPending) {
		this(writer, serializer, wakeUp, maxMessageBytes, clock, sourceHost, backlog, maxPending,
				() -> Transport.DEFAULT_MAX_HEADER_BYTES);
	}

	/**
	 * Creates a publisher that refuses messages whose encoded headers would exceed what the
	 * transport accepts.
	 * @param writer writes each transaction's messages before it commits
	 * @param serializer serializes message bodies
	 * @param wakeUp signalled after each commit that wrote messages
	 * @param maxMessageBytes the largest body accepted, at least 1
	 * @param clock the clock for the sent time
	 * @param sourceHost the host name recorded with each message, or {@literal null}
	 * @param backlog the backlog figures the relay keeps current
	 * @param maxPending the most pending messages before publish fails with
	 * {@link OutboxFullException}, 0 for no limit
	 * @param maxHeaderBytes the largest encoded header, read at each publish, typically
	 * {@link Transport#maxHeaderBytes()}; it must answer without contacting the broker
	 * @since 0.2
	 */
	public DefaultOutboxPublisher(OutboxWriter writer, MessageSerializer serializer, RelayWakeUp wakeUp,
			long maxMessageBytes, Clock clock, @Nullable String sourceHost, OutboxBacklog backlog, long maxPending,
			LongSupplier maxHeaderBytes) {
		this.maxHeaderBytes = Objects.requireNonNull(maxHeaderBytes, "maxHeaderBytes must not be null");
		if (maxPending < 0) {
			throw new IllegalArgumentException("waybill.outbox.max-pending must be 0 (no limit) or more, was " + maxPending);
		}
		this.backlog = Objects.requireNonNull(backlog, "backlog must not be null");
		this.maxPending = maxPending;
		if (maxMessageBytes < 1) {
			throw new IllegalArgumentException(MAX_MESSAGE_BYTES_PROPERTY + " must be at least 1 byte, was " + maxMessageBytes);
		}
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.maxMessageBytes = maxMessageBytes;
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.sourceHost = sourceHost;
	}

	@Override
	public UUID publish(Object message, Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(requireMessage(message));
		return buffer(type, type, message, options);
	}

	@Override
	public UUID send(String destination, Object message, Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(requireMessage(message));
		if (destination == null || destination.isBlank()) {
			throw new InvalidMessageException(type, "the destination must not be blank", null);
		}
		return buffer(destination, type, message, options);
	}

	/**
	 * Builds the message {@link #publish(Object) publish(message)} would buffer, with the same
	 * checks, envelope and serialization, but buffers nothing and needs no transaction. For
	 * integrations that collect messages themselves and hand them to their {@link OutboxWriter}
	 * (the Hibernate integration turns the events of flushed entities into messages this way).
	 * @param message the message, must not be {@literal null}
	 * @return the message, addressed to the exchange of its message type
	 * @throws InvalidMessageException for bad input, as {@code publish} would
	 * @throws OutboxFullException when the backlog is at {@code waybill.outbox.max-pending}
	 * @since 0.1
	 */
	public OutboxMessage toMessage(Object message) {
		String type = MessageTypes.nameOf(requireMessage(message));
		return build(type, type, message, (options) -> {
		});
	}

	private UUID buffer(String destination, String type, Object message, Consumer<PublishOptions> customizer) {
		OutboxTransaction transaction = currentTransaction(type);
		OutboxMessage built = build(destination, type, message, customizer);
		transaction.add(built);
		return built.messageId();
	}

	private OutboxMessage build(String destination, String type, Object message, Consumer<PublishOptions> customizer) {
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
		OutboxMessage built = new OutboxMessage(id, destination, options.routingKey(), type,
				this.serializer.contentType(), options.headers(), body, options.correlationId(), conversationId,
				this.sourceHost, this.clock.instant(), options.notBefore());
		MessageChecks.check(built, this.maxHeaderBytes.getAsLong());
		return built;
	}

	@Override
	public void bindInbound(UUID inboundMessageId, String consumerId) {
		Objects.requireNonNull(inboundMessageId, "inboundMessageId must not be null");
		Objects.requireNonNull(consumerId, "consumerId must not be null");
		currentTransaction("consumer outbox of " + inboundMessageId).bindInbound(inboundMessageId, consumerId);
	}

	private OutboxTransaction currentTransaction(String type) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("Cannot publish '" + type + "': no transaction is active. "
					+ "Waybill writes messages in the business transaction and never sends directly; "
					+ "annotate the calling method with @Outbox (or @Transactional), or publish inside "
					+ "TransactionTemplate.execute(...).");
		}
		if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			throw new IllegalStateException("Cannot publish '" + type + "': the current transaction is read-only. "
					+ "Remove readOnly = true from the @Transactional that starts it, or publish from a "
					+ "read-write @Outbox method.");
		}
		this.writer.checkTransaction();
		return OutboxTransaction.current(this, this.writer, this.wakeUp);
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

	private static Object requireMessage(@Nullable Object message) {
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
