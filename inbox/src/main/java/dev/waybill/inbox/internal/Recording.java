package dev.waybill.inbox.internal;

import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;

/**
 * Runs the transactions that record what happened to a delivery: each in a new transaction, tried
 * a bounded number of times, an outage thrown at once.
 *
 * @since 0.1
 */
final class Recording {

	/** The processor's logger: its messages are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	/** Tries to record a delivery before the last resort; an outage is not counted. */
	static final int TRIES = 3;

	private static final long PAUSE_MILLIS = 100;

	private final PlatformTransactionManager transactionManager;

	private final TransactionDefinition transaction;

	Recording(PlatformTransactionManager transactionManager) {
		this.transactionManager = Objects.requireNonNull(transactionManager, "transactionManager must not be null");
		// Always a transaction of its own: joining a caller's would tie the inbox to its outcome.
		this.transaction = new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
	}

	/**
	 * Runs a transaction that records what happened to a delivery, a bounded number of times.
	 * @throws RuntimeException the failure when the database is unavailable (nothing recorded)
	 * @throws CannotRecord when every try failed otherwise
	 */
	InboxOutcome record(ConsumerRegistration<?> consumer, @Nullable UUID id,
			Function<TransactionConnection, InboxOutcome> work) {
		int tries = 0;
		while (true) {
			TransactionConnection connection = new TransactionConnection();
			try {
				return work.apply(connection);
			}
			catch (RuntimeException ex) {
				Throwable failure = (ex instanceof RecordingFailure) ? ex.getCause() : ex;
				if (DatabaseFailures.unavailableToRecord(ex, connection.state())) {
					throw unavailable(consumer, id, failure);
				}
				tries = nextTry(consumer, id, tries, failure);
			}
		}
	}

	/**
	 * Counts a failed try to record a delivery and pauses briefly before the next.
	 * @return the tries so far
	 * @throws CannotRecord when that was the last try
	 */
	static int nextTry(ConsumerRegistration<?> consumer, @Nullable UUID id, int tries, Throwable failure) {
		int done = tries + 1;
		if (done >= TRIES) {
			throw new CannotRecord(failure);
		}
		logger.warn("Recording message " + id + " on queue '" + consumer.queue() + "' failed (try " + done + " of "
				+ TRIES + "), trying again: " + failure);
		try {
			Thread.sleep(PAUSE_MILLIS * done);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new CannotRecord(failure);
		}
		return done;
	}

	/**
	 * Runs {@code work} in a new transaction, as {@code TransactionTemplate} does, except that a
	 * rollback failing on a lost connection is not logged as an error: it is expected during a
	 * database outage, and the exception thrown (carrying the application exception) is classified
	 * and the delivery returned to the queue.
	 */
	InboxOutcome execute(TransactionCallback<InboxOutcome> work) {
		TransactionStatus status = this.transactionManager.getTransaction(this.transaction);
		InboxOutcome outcome;
		try {
			outcome = work.doInTransaction(status);
		}
		catch (RuntimeException | Error ex) {
			rollback(status, ex);
			throw ex;
		}
		this.transactionManager.commit(status);
		return Objects.requireNonNull(outcome, "no outcome");
	}

	private void rollback(TransactionStatus status, Throwable failure) {
		try {
			this.transactionManager.rollback(status);
		}
		catch (TransactionSystemException ex) {
			ex.initApplicationException(failure);
			logger.debug("Rollback failed after: " + failure, ex);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			ex.addSuppressed(failure);
			throw ex;
		}
	}

	/**
	 * Begins a transaction of its own, for a batch that the caller commits or rolls back.
	 * @return the transaction
	 */
	TransactionStatus begin() {
		return this.transactionManager.getTransaction(this.transaction);
	}

	void commit(TransactionStatus status) {
		this.transactionManager.commit(status);
	}

	/**
	 * Rolls a batch back; a rollback that fails leaves nothing committed either, so it is only
	 * logged.
	 */
	void rollbackQuietly(TransactionStatus status) {
		try {
			this.transactionManager.rollback(status);
		}
		catch (RuntimeException ex) {
			logger.debug("Rollback of an inbox batch failed: " + ex);
		}
	}

	/**
	 * Returns what to throw for an outage: the failure itself when it is unchecked (a rollback that
	 * failed is thrown as Spring's exception, the handler's is kept as its application exception).
	 */
	static RuntimeException unavailable(ConsumerRegistration<?> consumer, @Nullable UUID id, Throwable failure) {
		return (failure instanceof RuntimeException runtime) ? runtime
				: new DataAccessResourceFailureException("Message " + id + " on queue '" + consumer.queue()
						+ "' could not be handled: the database is unavailable", failure);
	}

	/**
	 * Carries the failure of one of Waybill's own statements (the inbox row, the outbox) out of the
	 * transaction callback, after the connection was checked.
	 */
	static final class RecordingFailure extends RuntimeException {

		private RecordingFailure(RuntimeException cause) {
			super(cause);
		}

		static RecordingFailure checked(RuntimeException cause, TransactionConnection connection) {
			connection.check();
			return new RecordingFailure(cause);
		}

	}

	/**
	 * Every bounded try to record a delivery failed, and not for an outage.
	 */
	static final class CannotRecord extends RuntimeException {

		CannotRecord(Throwable cause) {
			super(cause);
		}

	}

}
