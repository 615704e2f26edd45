package dev.waybill.outbox.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.MessageTypes;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.ScheduledMessage;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;

/**
 * The {@link OutboxPublisher} that buffers messages in the current Spring transaction and has an
 * {@link OutboxWriter} write them just before it commits. Its messages are built by an
 * {@link OutboxMessageFactory}.
 *
 * @since 0.1
 */
public final class DefaultOutboxPublisher implements OutboxPublisher {

	/** The property that limits body sizes, named in errors. */
	public static final String MAX_MESSAGE_BYTES_PROPERTY = DefaultOutboxMessageFactory.MAX_MESSAGE_BYTES_PROPERTY;

	private final OutboxMessageFactory messages;

	private final OutboxWriter writer;

	private final RelayWakeUp wakeUp;

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
	 * @since 0.1
	 */
	public DefaultOutboxPublisher(OutboxWriter writer, MessageSerializer serializer, RelayWakeUp wakeUp,
			long maxMessageBytes, Clock clock, @Nullable String sourceHost, OutboxBacklog backlog, long maxPending,
			LongSupplier maxHeaderBytes) {
		this(new DefaultOutboxMessageFactory(serializer, maxMessageBytes, clock, sourceHost, backlog, maxPending,
				maxHeaderBytes), writer, wakeUp);
	}

	/**
	 * Creates a publisher whose messages the given factory builds.
	 * @param messages builds each message with its envelope and checks
	 * @param writer writes each transaction's messages before it commits
	 * @param wakeUp signalled after each commit that wrote messages
	 * @since 0.1
	 */
	public DefaultOutboxPublisher(OutboxMessageFactory messages, OutboxWriter writer, RelayWakeUp wakeUp) {
		this.messages = Objects.requireNonNull(messages, "messages must not be null");
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
	}

	@Override
	public UUID publish(Object message, Consumer<PublishOptions> options) {
		return buffer(null, message, options);
	}

	@Override
	public UUID send(String destination, Object message, Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(DefaultOutboxMessageFactory.requireMessage(message));
		if (destination == null || destination.isBlank()) {
			throw new InvalidMessageException(type, "the destination must not be blank", null);
		}
		return buffer(destination, message, options);
	}

	@Override
	public ScheduledMessage schedule(Object message, Instant at, Consumer<PublishOptions> options) {
		return scheduled(null, message, at, options);
	}

	@Override
	public ScheduledMessage scheduleSend(String destination, Object message, Instant at,
			Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(DefaultOutboxMessageFactory.requireMessage(message));
		if (destination == null || destination.isBlank()) {
			throw new InvalidMessageException(type, "the destination must not be blank", null);
		}
		return scheduled(destination, message, at, options);
	}

	@Override
	public boolean cancel(UUID scheduleId) {
		Objects.requireNonNull(scheduleId, "scheduleId must not be null");
		OutboxTransaction transaction = OutboxTransaction.current("cancel of " + scheduleId, this.writer, this.wakeUp);
		return transaction.cancelBuffered(scheduleId) || this.writer.cancel(scheduleId);
	}

	private ScheduledMessage scheduled(@Nullable String destination, Object message, Instant at,
			Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(DefaultOutboxMessageFactory.requireMessage(message));
		if (at == null) {
			throw new InvalidMessageException(type, "the scheduled time must not be null", null);
		}
		Objects.requireNonNull(options, "options must not be null");
		OutboxTransaction transaction = OutboxTransaction.current(type, this.writer, this.wakeUp);
		OutboxMessage built = this.messages.create(destination, message, options.andThen((o) -> o.notBefore(at)));
		UUID scheduleId = Objects.requireNonNull(transaction.add(built), "a scheduled message stands alone");
		return new ScheduledMessage(scheduleId, built.messageId(), at);
	}

	/**
	 * Builds the message {@link #publish(Object) publish(message)} would buffer, with the same
	 * checks, envelope and serialization, but buffers nothing and needs no transaction.
	 * @param message the message, must not be {@literal null}
	 * @return the message, addressed to the exchange of its message type
	 * @throws InvalidMessageException for bad input, as {@code publish} would
	 * @throws OutboxFullException when the backlog is at {@code waybill.outbox.max-pending}
	 * @since 0.1
	 * @see OutboxMessageFactory#create(Object)
	 */
	public OutboxMessage toMessage(Object message) {
		return this.messages.create(message);
	}

	/**
	 * Returns the {@link ConsumerOutbox} that marks the scope this publisher buffers into.
	 * @return the consumer outbox on this publisher's writer
	 * @since 0.1
	 */
	public ConsumerOutbox consumerOutbox() {
		return new DefaultConsumerOutbox(this.writer, this.wakeUp);
	}

	private UUID buffer(@Nullable String destination, @Nullable Object message, Consumer<PublishOptions> options) {
		String type = MessageTypes.nameOf(DefaultOutboxMessageFactory.requireMessage(message));
		OutboxTransaction transaction = OutboxTransaction.current(type, this.writer, this.wakeUp);
		OutboxMessage built = this.messages.create(destination, message, options);
		transaction.add(built);
		return built.messageId();
	}

}
