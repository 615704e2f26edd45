package dev.waybill.inbox.internal;

import java.sql.SQLException;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.Recording.RecordingFailure;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * One attempt of a delivery alone, in a transaction of its own: the inbox row, the handler, the
 * processed mark, committed together; and the note of a handler failure the consumer ignores.
 *
 * @since 0.1
 */
final class HandlerTransaction {

	/** The processor's logger: its messages are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	/** PostgreSQL refuses every statement after a failed one in a transaction. */
	private static final String IN_FAILED_SQL_TRANSACTION = "25P02";

	private final Recording recording;

	private final InboxStore store;

	private final OutboxWriter writer;

	private final OutboxPublisher publisher;

	private final ConsumerOutbox consumerOutbox;

	HandlerTransaction(Recording recording, InboxResources resources) {
		this.recording = recording;
		this.store = resources.store();
		this.writer = resources.writer();
		this.publisher = resources.publisher();
		this.consumerOutbox = resources.consumerOutbox();
	}

	/**
	 * Runs one attempt: records the delivery, runs the handler and marks the message processed.
	 * @throws HandlerFailure when the handler failed (rolled back)
	 * @throws RecordingFailure when one of Waybill's statements failed (rolled back)
	 */
	<T> InboxOutcome handle(ConsumerRegistration<T> consumer, InboundMessage message, UUID id, T payload, int retry,
			TransactionConnection connection) {
		return this.recording.execute((status) -> {
			this.writer.checkTransaction();
			connection.attach(this.store.dataSource());
			InboxStore.Receipt receipt;
			try {
				receipt = this.store.receive(id, consumer.consumerId());
			}
			catch (RuntimeException ex) {
				throw RecordingFailure.checked(ex, connection);
			}
			if (receipt.processed()) {
				return InboxOutcome.DUPLICATE;
			}
			if (receipt.faulted()) {
				return InboxOutcome.ALREADY_FAULTED;
			}
			this.consumerOutbox.bindInbound(id, consumer.consumerId());
			MessageContext context = new HandlerContext(id, consumer.messageType(), message, consumer.consumerId(),
					receipt.attempts(), retry, this.publisher);
			try {
				consumer.handler().handle(payload, context);
			}
			catch (Exception ex) {
				// Before the rollback: a connection lost under the handler is no fault of the message,
				// whatever the handler made of the driver's exception.
				connection.check();
				throw new HandlerFailure(ex);
			}
			if (status.isRollbackOnly()) {
				// as the commit would have thrown: the handler's failure, not the inbox's
				throw new HandlerFailure(new UnexpectedRollbackException(
						"Transaction silently rolled back because it has been marked as rollback-only"));
			}
			try {
				this.store.markProcessed(id, consumer.consumerId());
			}
			catch (RuntimeException ex) {
				if (abortedBeforeMarking(ex)) {
					// A statement of the handler failed and it caught the exception (a JPA handler that
					// catches a failed flush): PostgreSQL refuses everything after it in the transaction.
					// That is the handler's failure, retried as any other, not Waybill's.
					connection.check();
					throw new HandlerFailure(new IllegalStateException(DeliveryFault.ABORTED_BY_HANDLER, ex));
				}
				throw RecordingFailure.checked(ex, connection);
			}
			return InboxOutcome.PROCESSED;
		});
	}

	/**
	 * Records a message whose handler threw an exception the consumer ignores: the handler's work
	 * rolled back; the inbox row is marked processed with the exception as its note, in a
	 * transaction of its own, and the delivery is acknowledged.
	 */
	InboxOutcome ignore(ConsumerRegistration<?> consumer, UUID id, Throwable ignored, Throwable failure) {
		String note = DeliveryFault.shorten("ignored: " + ignored + ((ignored != failure) ? " (in " + failure + ")" : ""));
		InboxOutcome outcome = this.recording.record(consumer, id, (connection) -> this.recording.execute((status) -> {
			connection.attach(this.store.dataSource());
			try {
				InboxStore.Receipt receipt = this.store.receive(id, consumer.consumerId());
				if (receipt.processed()) {
					return InboxOutcome.DUPLICATE;
				}
				if (receipt.faulted()) {
					return InboxOutcome.ALREADY_FAULTED;
				}
				this.store.markProcessed(id, consumer.consumerId(), note);
				return InboxOutcome.PROCESSED;
			}
			catch (RuntimeException ex) {
				throw RecordingFailure.checked(ex, connection);
			}
		}));
		if (outcome == InboxOutcome.PROCESSED) {
			logger.info("Message " + id + " on queue '" + consumer.queue() + "' acknowledged without effect: " + note);
		}
		return outcome;
	}

	/**
	 * What failed the delivery's transaction: the handler's exception, or, when the rollback failed
	 * too (PostgreSQL ended the connection, e.g. for {@code idle_in_transaction_session_timeout}),
	 * the failure that made it roll back rather than {@code JDBC rollback failed}.
	 */
	static Throwable failureOf(Throwable thrown) {
		Throwable failure = thrown;
		if (failure instanceof TransactionSystemException end && end.getApplicationException() != null) {
			failure = end.getApplicationException();
		}
		return (failure instanceof HandlerFailure || failure instanceof RecordingFailure) && failure.getCause() != null
				? failure.getCause() : failure;
	}

	/**
	 * Whether a failure of Waybill's first statement after the handler says the handler left the
	 * transaction aborted ({@code in_failed_sql_transaction}, SQLSTATE 25P02).
	 */
	private static boolean abortedBeforeMarking(Throwable failure) {
		int depth = 0;
		for (Throwable current = failure; current != null && depth < 20; current = current.getCause(), depth++) {
			if (current instanceof SQLException sql && IN_FAILED_SQL_TRANSACTION.equals(sql.getSQLState())) {
				return true;
			}
		}
		return false;
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
