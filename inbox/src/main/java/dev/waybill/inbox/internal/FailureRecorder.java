package dev.waybill.inbox.internal;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.Recording.CannotRecord;
import dev.waybill.inbox.internal.Recording.RecordingFailure;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.spi.FaultEvents;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.HostNames;
import dev.waybill.kernel.PostgresText;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * Records a failed delivery and forwards its message through the outbox: a redelivery after the
 * {@link RetryPolicy} backoff, or a copy in the error queue (with its {@link Fault} event when fault
 * events are on); the last resort for a delivery the database refuses to record.
 *
 * @since 0.1
 */
final class FailureRecorder {

	/** The processor's logger: its messages are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	/** The longest fault type name: it names the fault exchange, an AMQP short string. */
	private static final int MAX_FAULT_TYPE_LENGTH = 255;

	private static final String HOST = HostNames.local();

	private final Recording recording;

	private final InboxStore store;

	private final OutboxWriter writer;

	private final MessageSerializer serializer;

	private final RelayWakeUp wakeUp;

	private final InboxSettings settings;

	private final InboxListeners listeners;

	FailureRecorder(Recording recording, InboxResources resources, InboxSettings settings, InboxListeners listeners) {
		this.recording = recording;
		this.store = resources.store();
		this.writer = resources.writer();
		this.serializer = resources.serializer();
		this.wakeUp = resources.wakeUp();
		this.settings = settings;
		this.listeners = listeners;
	}

	/**
	 * Records a failed delivery and forwards the message, as a redelivery or to the error queue, in
	 * one transaction.
	 */
	InboxOutcome fail(ConsumerRegistration<?> consumer, InboundMessage message, UUID id, DeliveryFault fault) {
		return fail(consumer, message, id, fault, null);
	}

	/**
	 * Records a failed delivery and forwards the message; when the message goes to the error queue
	 * and fault events are on, publishes its {@link Fault} in the same transaction.
	 * @param payload the message as the handler got it, {@literal null} for poison
	 */
	InboxOutcome fail(ConsumerRegistration<?> consumer, InboundMessage message, UUID id, DeliveryFault fault,
			@Nullable Object payload) {
		RetryPolicy retryPolicy = retryPolicy(consumer);
		long maxHeaderBytes = this.settings.maxHeaderBytes().getAsLong();
		if (!fault.poison() && retryPolicy.maxAttempts() > 1) {
			// A redelivery that can never be published would leave the message in no queue, not final.
			String tooLarge = Forwarding.redeliveryTooLarge(consumer, message, this.settings.clock().instant(), maxHeaderBytes);
			if (tooLarge != null) {
				fault = DeliveryFault.poison(tooLarge, fault.exception());
			}
		}
		DeliveryFault recorded = fault;
		Object[] dropped = new Object[1];
		int faultAt = fault.poison() ? 1 : retryPolicy.maxAttempts();
		InboxOutcome outcome = this.recording.record(consumer, id, (connection) -> this.recording.execute((status) -> {
			this.writer.checkTransaction();
			connection.attach(this.store.dataSource());
			try {
				InboxStore.Failure failure = this.store.recordFailure(id, consumer.consumerId(), recorded.summary(),
						faultAt);
				if (!failure.recorded()) {
					// A concurrent delivery processed the message, or gave it up, meanwhile.
					return failure.processed() ? InboxOutcome.DUPLICATE : InboxOutcome.ALREADY_FAULTED;
				}
				// The database's clock, not this host's: the redelivery's not-before time is compared
				// with the database's now() when it is claimed (a host clock ahead delayed every retry by
				// its skew, one behind made them due at once).
				Instant now = this.store.databaseNow();
				OutboxMessage forward = failure.faulted()
						? Forwarding.fault(id, consumer, message, recorded, failure.attempts(), now, maxHeaderBytes)
						: Forwarding.redelivery(id, consumer, message, failure.attempts(), now,
								now.plus(retryPolicy.delay(failure.attempts() - 1)));
				this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(forward), id, consumer.consumerId()));
				dropped[0] = forward.headers().get(InboxHeaders.DROPPED_HEADERS);
				OutboxMessage event = (failure.faulted() && payload != null && this.settings.publishFaults())
						? faultEvent(consumer, message, id, payload, recorded, failure.attempts(), now) : null;
				if (event != null) {
					// A scope of its own, so that an unroutable fault event (no service consumes the
					// faults yet) never holds back the copy in the error queue.
					this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(event), id, consumer.consumerId()));
				}
				return failure.faulted() ? InboxOutcome.FAULTED : InboxOutcome.RETRY_SCHEDULED;
			}
			catch (RuntimeException ex) {
				throw RecordingFailure.checked(ex, connection);
			}
		}));
		if (outcome == InboxOutcome.FAULTED || outcome == InboxOutcome.RETRY_SCHEDULED) {
			this.wakeUp.committed();
			this.settings.observation().failed((fault.exception() != null) ? fault.exception()
					: new IllegalArgumentException(fault.summary()));
		}
		if (outcome == InboxOutcome.FAULTED) {
			logger.warn("Message " + id + " on queue '" + consumer.queue() + "' moved to '" + consumer.errorQueue()
					+ "': " + fault.summary() + ((dropped[0] != null) ? " (" + dropped[0] + ")" : ""));
			if (fault.poison()) {
				this.listeners.poisoned(consumer, message, fault.summary());
			}
		}
		else if (outcome == InboxOutcome.RETRY_SCHEDULED && logger.isDebugEnabled()) {
			logger.debug("Message " + id + " on queue '" + consumer.queue() + "' failed; redelivery scheduled: "
					+ fault.summary());
		}
		return outcome;
	}

	RetryPolicy retryPolicy(ConsumerRegistration<?> consumer) {
		EndpointRetry own = consumer.retry();
		return (own != null) ? own.policy() : this.settings.retryPolicy();
	}

	/**
	 * Moves a message without a usable id to the error queue under a new id; with no key there is no
	 * inbox row to record it in.
	 */
	InboxOutcome faultWithoutId(ConsumerRegistration<?> consumer, InboundMessage message) {
		String raw = message.messageId();
		DeliveryFault fault = DeliveryFault.poison((raw == null) ? "the message has no message id"
				: "message id '" + DeliveryFault.shown(raw) + "' is not a UUID", null);
		OutboxMessage forward = Forwarding.fault(TimeOrderedUuids.next(), consumer, message, fault, 1, this.settings.clock().instant(),
				this.settings.maxHeaderBytes().getAsLong());
		writeFault(consumer, null, forward);
		logger.warn("Message on queue '" + consumer.queue() + "' moved to '" + consumer.errorQueue() + "': "
				+ fault.summary());
		this.listeners.poisoned(consumer, message, fault.summary());
		return InboxOutcome.FAULTED;
	}

	/**
	 * The last resort for a delivery whose inbox row or failure the database refused to record, a
	 * bounded number of times, for a reason that is not an outage: the message goes to the error
	 * queue through the outbox alone, saying why; when even that is refused, the transport has to
	 * move it there itself.
	 */
	InboxOutcome faultUnrecorded(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable UUID id,
			Throwable cause) {
		String reason = DeliveryFault.shorten("Waybill could not record the delivery in its inbox: " + cause);
		DeliveryFault fault = DeliveryFault.poison(reason, cause);
		OutboxMessage forward = Forwarding.fault((id != null) ? id : TimeOrderedUuids.next(), consumer, message, fault, 1,
				this.settings.clock().instant(), this.settings.maxHeaderBytes().getAsLong());
		String shown = (id != null) ? id.toString() : "without a valid id";
		try {
			writeFault(consumer, id, forward);
		}
		catch (CannotRecord ex) {
			logger.error("Message " + shown + " on queue '" + consumer.queue() + "' cannot be recorded, not even as a "
					+ "fault (" + ex.getCause() + "); the transport moves it to '" + consumer.errorQueue() + "': " + reason);
			throw new UnrecordableDeliveryException(reason, ex.getCause());
		}
		logger.error("Message " + shown + " on queue '" + consumer.queue() + "' moved to '" + consumer.errorQueue()
				+ "': " + reason, cause);
		this.listeners.poisoned(consumer, message, reason);
		return InboxOutcome.FAULTED;
	}

	/**
	 * Writes a fault to the outbox alone, in a transaction of its own, and wakes the relay.
	 */
	private void writeFault(ConsumerRegistration<?> consumer, @Nullable UUID id, OutboxMessage forward) {
		this.recording.record(consumer, id, (connection) -> this.recording.execute((status) -> {
			this.writer.checkTransaction();
			connection.attach(this.store.dataSource());
			try {
				this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(forward), null, null));
			}
			catch (RuntimeException ex) {
				throw RecordingFailure.checked(ex, connection);
			}
			return InboxOutcome.FAULTED;
		}));
		this.wakeUp.committed();
	}

	/**
	 * Builds the fault event of a message given up, or returns {@literal null} (and logs why) when it
	 * cannot be built: the message still goes to the error queue.
	 */
	private @Nullable OutboxMessage faultEvent(ConsumerRegistration<?> consumer, InboundMessage message, UUID id,
			Object payload, DeliveryFault fault, int attempts, Instant now) {
		String type = Fault.typeName(Objects.toString(message.messageType(), ""));
		Throwable exception = fault.exception();
		try {
			if (type.length() > MAX_FAULT_TYPE_LENGTH) {
				throw new IllegalArgumentException("its type name '" + DeliveryFault.shown(type) + "' is over "
						+ MAX_FAULT_TYPE_LENGTH + " characters");
			}
			Fault<Object> event = FaultEvents.of(payload, id, Objects.toString(message.messageType(), ""),
					message.correlationId(), message.conversationId(), consumer.consumerId(), now, attempts, exception,
					fault.summary());
			byte[] body = this.serializer.serialize(event);
			String correlationId = (message.correlationId() != null) ? message.correlationId() : id.toString();
			return new OutboxMessage(TimeOrderedUuids.next(), type, "", type, this.serializer.contentType(), Map.of(),
					body, PostgresText.column(correlationId), PostgresText.column(message.conversationId()), HOST,
					now, null);
		}
		catch (Exception ex) {
			logger.warn("Message " + id + " on queue '" + consumer.queue() + "' goes to '" + consumer.errorQueue()
					+ "' without a fault event: it cannot be built (" + ex + ")");
			return null;
		}
	}

}
