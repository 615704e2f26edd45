package dev.waybill.inbox;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.jdbc.InboxStore;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.jdbc.PostgresText;
import dev.waybill.outbox.relay.RetryPolicy;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.support.RelayWakeUp;
import dev.waybill.outbox.support.TimeOrderedUuids;

/**
 * Handles one delivery for one consumer, once in effect, and tells the transport what to do with
 * it. Transport-neutral: a receive endpoint calls {@link #process(ConsumerRegistration, InboundMessage)}
 * for every delivery and acknowledges it when the call returns, whatever the {@link InboxOutcome};
 * when the call throws (the database is unavailable) nothing was recorded and the endpoint
 * rejects the delivery with requeue.
 * <p>
 * In order:
 * <ol>
 * <li>A message that can never be handled goes to the consumer's error queue at once
 * ({@link InboxOutcome#FAULTED}): no message id or one that is not a UUID (no inbox row is
 * written), a type other than the consumer's, a body the serializer cannot read into the
 * consumer's payload class (its inbox row is marked faulted).</li>
 * <li>In one transaction of the application's transaction manager (so JPA handlers share it) the
 * inbox row is inserted or, for a redelivery, counted and locked; a message the consumer processed
 * already is {@link InboxOutcome#DUPLICATE} and the handler is not called. Otherwise the handler
 * runs, its publications are tied to the inbound message (the consumer outbox), the row is marked
 * processed and everything commits together: {@link InboxOutcome#PROCESSED}. A concurrent
 * delivery of the same message waits on the row lock and then finds it processed.</li>
 * <li>A handler that throws rolls all of that back. It is retried in process, each time in a fresh
 * transaction, {@code immediateRetries} times; then one new transaction records the failed attempt
 * and its error on the inbox row and writes, through the outbox, either a redelivery of the
 * unchanged message to the consumer's queue after the {@link RetryPolicy} backoff
 * ({@link InboxOutcome#RETRY_SCHEDULED}), or, at the policy's maximum attempts, a copy to the
 * error queue with the exception in its headers ({@link InboxHeaders}), marking the row faulted
 * ({@link InboxOutcome#FAULTED}).</li>
 * </ol>
 * The inbox row's failed attempts are {@link MessageContext#redeliveryCount()}. A faulted message
 * that is delivered again (moved back from the error queue) gets one more try; failing it goes
 * straight back to the error queue.
 * <p>
 * Thread-safe; one instance serves every consumer.
 *
 * @since 0.1
 */
public final class InboxProcessor {

	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	private static final int SHOWN_ID_LENGTH = 64;

	private final TransactionTemplate transaction;

	private final InboxStore store;

	private final OutboxWriter writer;

	private final OutboxPublisher publisher;

	private final ConsumerOutbox consumerOutbox;

	private final MessageSerializer serializer;

	private final RelayWakeUp wakeUp;

	private final RetryPolicy retryPolicy;

	private final int immediateRetries;

	private final InboxListener listener;

	private final Clock clock = Clock.systemUTC();

	/**
	 * Creates a processor.
	 * @param transactionManager the application's transaction manager; it must manage the DataSource
	 * of the inbox store and the outbox writer
	 * @param store the inbox table
	 * @param writer writes redeliveries and faults to the outbox in the inbox transaction
	 * @param publisher publishes what handlers publish through {@link MessageContext}
	 * @param consumerOutbox ties a handler's publications to the inbound message (the default
	 * publisher implements it)
	 * @param serializer reads message bodies into payloads
	 * @param wakeUp signalled after a redelivery or fault is committed
	 * @param retryPolicy the backoff between redeliveries and the maximum attempts
	 * @param immediateRetries in-process retries of a failed handler before a redelivery is scheduled,
	 * at least 0
	 */
	public InboxProcessor(PlatformTransactionManager transactionManager, InboxStore store, OutboxWriter writer,
			OutboxPublisher publisher, ConsumerOutbox consumerOutbox, MessageSerializer serializer, RelayWakeUp wakeUp,
			RetryPolicy retryPolicy, int immediateRetries) {
		this(transactionManager, store, writer, publisher, consumerOutbox, serializer, wakeUp, retryPolicy,
				immediateRetries, InboxListener.NONE);
	}

	/**
	 * Creates a processor that tells {@code listener} the outcome of every delivery.
	 * @param transactionManager the application's transaction manager; it must manage the DataSource
	 * of the inbox store and the outbox writer
	 * @param store the inbox table
	 * @param writer writes redeliveries and faults to the outbox in the inbox transaction
	 * @param publisher publishes what handlers publish through {@link MessageContext}
	 * @param consumerOutbox ties a handler's publications to the inbound message (the default
	 * publisher implements it)
	 * @param serializer reads message bodies into payloads
	 * @param wakeUp signalled after a redelivery or fault is committed
	 * @param retryPolicy the backoff between redeliveries and the maximum attempts
	 * @param immediateRetries in-process retries of a failed handler before a redelivery is scheduled,
	 * at least 0
	 * @param listener told each committed outcome
	 */
	public InboxProcessor(PlatformTransactionManager transactionManager, InboxStore store, OutboxWriter writer,
			OutboxPublisher publisher, ConsumerOutbox consumerOutbox, MessageSerializer serializer, RelayWakeUp wakeUp,
			RetryPolicy retryPolicy, int immediateRetries, InboxListener listener) {
		if (immediateRetries < 0) {
			throw new IllegalArgumentException("immediateRetries must be at least 0, was " + immediateRetries);
		}
		this.transaction = new TransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager must not be null"));
		// Always a transaction of its own: joining a caller's would tie the inbox to its outcome.
		this.transaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
		this.consumerOutbox = Objects.requireNonNull(consumerOutbox, "consumerOutbox must not be null");
		this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy must not be null");
		this.immediateRetries = immediateRetries;
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	/**
	 * Handles one delivery; see the class description.
	 * @param consumer the consumer of the queue the message arrived on
	 * @param message the delivery
	 * @return what was committed; acknowledge the delivery
	 * @throws org.springframework.dao.DataAccessException or another runtime exception when the
	 * database is unavailable (nothing was recorded; reject the delivery with requeue)
	 */
	public InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message) {
		Objects.requireNonNull(consumer, "consumer must not be null");
		Objects.requireNonNull(message, "message must not be null");
		InboxOutcome outcome = processTyped(consumer, message);
		try {
			this.listener.delivered(consumer, message, outcome);
		}
		catch (RuntimeException ex) {
			logger.warn("InboxListener failed on message " + message.messageId() + " (" + outcome + "): " + ex, ex);
		}
		return outcome;
	}

	private <T> InboxOutcome processTyped(ConsumerRegistration<T> consumer, InboundMessage message) {
		UUID id = canonicalUuid(message.messageId());
		if (id == null) {
			return faultWithoutId(consumer, message);
		}
		if (!consumer.messageType().equals(message.messageType())) {
			return fail(consumer, message, id, Fault.poison("no handler for type '" + shown(message.messageType())
					+ "' on queue '" + consumer.queue() + "'; it handles '" + consumer.messageType() + "'", null));
		}
		T payload;
		try {
			payload = this.serializer.deserialize(message.body(), consumer.payloadClass());
		}
		catch (Exception ex) {
			return fail(consumer, message, id, unreadable(consumer, message, ex));
		}
		if (payload == null) {
			return fail(consumer, message, id, unreadable(consumer, message, null));
		}
		for (int retry = 0;; retry++) {
			try {
				return handle(consumer, message, id, payload, retry);
			}
			catch (RuntimeException | Error ex) {
				if (ex instanceof VirtualMachineError) {
					throw ex;
				}
				Throwable failure = (ex instanceof HandlerFailure) ? ex.getCause() : ex;
				if (databaseUnavailable(failure)) {
					throw unavailable(consumer, id, failure);
				}
				if (failure instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
				if (retry >= this.immediateRetries) {
					return fail(consumer, message, id, Fault.handlerFailed(failure));
				}
				if (logger.isDebugEnabled()) {
					logger.debug("Retrying message " + id + " on queue '" + consumer.queue() + "' at once after: " + failure);
				}
			}
		}
	}

	private <T> InboxOutcome handle(ConsumerRegistration<T> consumer, InboundMessage message, UUID id, T payload,
			int retry) {
		return execute((status) -> {
			this.writer.checkTransaction();
			InboxStore.Receipt receipt = this.store.receive(id, consumer.consumerId());
			if (receipt.processed()) {
				return InboxOutcome.DUPLICATE;
			}
			this.consumerOutbox.bindInbound(id, consumer.consumerId());
			MessageContext context = new HandlerContext(id, consumer.messageType(), message, consumer.consumerId(),
					receipt.attempts(), retry, this.publisher);
			try {
				consumer.handler().handle(payload, context);
			}
			catch (Exception ex) {
				throw new HandlerFailure(ex);
			}
			this.store.markProcessed(id, consumer.consumerId());
			return InboxOutcome.PROCESSED;
		});
	}

	/**
	 * Records a failed delivery and forwards the message, as a redelivery or to the error queue, in
	 * one transaction.
	 */
	private InboxOutcome fail(ConsumerRegistration<?> consumer, InboundMessage message, UUID id, Fault fault) {
		int faultAt = fault.poison() ? 1 : this.retryPolicy.maxAttempts();
		InboxOutcome outcome = execute((status) -> {
			this.writer.checkTransaction();
			InboxStore.Failure failure = this.store.recordFailure(id, consumer.consumerId(), fault.summary(), faultAt);
			if (failure == null) {
				return InboxOutcome.DUPLICATE; // a concurrent delivery processed it meanwhile
			}
			Instant now = this.clock.instant();
			OutboxMessage forward = failure.faulted()
					? Forwarding.fault(id, consumer, message, fault, failure.attempts(), now)
					: Forwarding.redelivery(id, consumer, message, failure.attempts(), now,
							now.plus(this.retryPolicy.delay(failure.attempts() - 1)));
			this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(forward), id, consumer.consumerId()));
			return failure.faulted() ? InboxOutcome.FAULTED : InboxOutcome.RETRY_SCHEDULED;
		});
		if (outcome != InboxOutcome.DUPLICATE) {
			this.wakeUp.committed();
		}
		if (outcome == InboxOutcome.FAULTED) {
			logger.warn("Message " + id + " on queue '" + consumer.queue() + "' moved to '" + consumer.errorQueue()
					+ "': " + fault.summary());
		}
		else if (outcome == InboxOutcome.RETRY_SCHEDULED && logger.isDebugEnabled()) {
			logger.debug("Message " + id + " on queue '" + consumer.queue() + "' failed; redelivery scheduled: "
					+ fault.summary());
		}
		return outcome;
	}

	/**
	 * Moves a message without a usable id to the error queue under a new id; with no key there is no
	 * inbox row to record it in.
	 */
	private InboxOutcome faultWithoutId(ConsumerRegistration<?> consumer, InboundMessage message) {
		String raw = message.messageId();
		Fault fault = Fault.poison((raw == null) ? "the message has no message id"
				: "message id '" + shown(raw) + "' is not a UUID", null);
		OutboxMessage forward = Forwarding.fault(TimeOrderedUuids.next(), consumer, message, fault, 1, this.clock.instant());
		execute((status) -> {
			this.writer.checkTransaction();
			this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(forward), null, null));
			return InboxOutcome.FAULTED;
		});
		this.wakeUp.committed();
		logger.warn("Message on queue '" + consumer.queue() + "' moved to '" + consumer.errorQueue() + "': "
				+ fault.summary());
		return InboxOutcome.FAULTED;
	}

	private InboxOutcome execute(TransactionCallback<InboxOutcome> work) {
		return Objects.requireNonNull(this.transaction.execute(work), "no outcome");
	}

	private static Fault unreadable(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable Exception ex) {
		return Fault.poison("the body cannot be read as " + consumer.payloadClass().getName() + " (content type '"
				+ shown(message.contentType()) + "')", ex);
	}

	private static RuntimeException unavailable(ConsumerRegistration<?> consumer, UUID id, Throwable failure) {
		return (failure instanceof RuntimeException runtime) ? runtime : new DataAccessResourceFailureException("Message " + id + " on queue '" + consumer.queue()
				+ "' could not be handled: the database is unavailable", failure);
	}

	/**
	 * Tells whether a failure means the database cannot be reached, which is no fault of the
	 * message: it is redelivered by the broker without using up an attempt.
	 */
	static boolean databaseUnavailable(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof CannotCreateTransactionException || cause instanceof DataAccessResourceFailureException
					|| cause instanceof TransientDataAccessResourceException
					|| cause instanceof SQLTransientConnectionException
					|| cause instanceof SQLNonTransientConnectionException) {
				return true;
			}
			// connection exception, insufficient resources, operator intervention (shutdown)
			if (cause instanceof SQLException sql && sql.getSQLState() != null && (sql.getSQLState().startsWith("08")
					|| sql.getSQLState().startsWith("53") || sql.getSQLState().startsWith("57P"))) {
				return true;
			}
		}
		return false;
	}

	static @Nullable UUID canonicalUuid(@Nullable String text) {
		if (text == null || text.length() != 36) {
			return null;
		}
		try {
			UUID id = UUID.fromString(text);
			return id.toString().equalsIgnoreCase(text) ? id : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/** Quotes an untrusted property in a fault reason: cut, with control characters escaped. */
	private static String shown(@Nullable String text) {
		return PostgresText.readable(String.valueOf(text), SHOWN_ID_LENGTH);
	}

	/**
	 * Carries a handler's exception out of the transaction callback, which rolls back on it.
	 */
	private static final class HandlerFailure extends RuntimeException {

		HandlerFailure(Exception cause) {
			super(cause);
		}

	}

}
