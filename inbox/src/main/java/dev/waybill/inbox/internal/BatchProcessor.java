package dev.waybill.inbox.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionStatus;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * Handles several deliveries in as few transactions as it can, as
 * {@link InboxProcessor#processBatch} describes: batches where it can, a delivery that cannot be
 * handled in one alone, and the deliveries before it again after the rollback.
 *
 * @since 0.1
 */
final class BatchProcessor {

	/** The processor's logger: its messages are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	/** How long batching pauses after a batch failed for a reason that is not an outage. */
	private static final long BATCH_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final PlatformTransactionManager transactionManager;

	private final ConsumerOutbox consumerOutbox;

	private final OutboxWriter writer;

	private final InboxResources resources;

	private final Recording recording;

	private final BatchRun run;

	private final SingleDelivery single;

	private final boolean batches;

	/** Until when deliveries are handled alone (System.nanoTime()). */
	private volatile long batchesPausedUntil = System.nanoTime();

	BatchProcessor(InboxResources resources, Recording recording, BatchRun run, SingleDelivery single) {
		this.transactionManager = resources.transactionManager();
		this.consumerOutbox = resources.consumerOutbox();
		this.writer = resources.writer();
		this.resources = resources;
		this.recording = recording;
		this.run = run;
		this.single = single;
		this.batches = whyNotBatched() == null;
	}

	List<DeliveryResult> processBatch(List<InboxDelivery> deliveries) {
		DeliveryResult[] results = new DeliveryResult[deliveries.size()];
		Map<Integer, BatchEntry> carried = new HashMap<>();
		processRange(deliveries, 0, results, carried);
		return List.of(results);
	}

	/**
	 * Tells why deliveries are handled each in a transaction of its own, if they are: batches need a
	 * JDBC transaction manager and a consumer outbox that writes each inbound message's scope
	 * while the transaction goes on (the default publisher's).
	 * @return the reason, or {@code null} when deliveries are batched
	 */
	@Nullable String whyNotBatched() {
		if (!(this.transactionManager instanceof DataSourceTransactionManager)) {
			return "batched transactions need a JDBC transaction manager (DataSourceTransactionManager or "
					+ "JdbcTransactionManager), and the application's is " + this.transactionManager.getClass().getSimpleName();
		}
		if (!this.consumerOutbox.writesInboundNow()) {
			return "batched transactions need Waybill's own consumer outbox, and the application declares "
					+ this.consumerOutbox.getClass().getSimpleName();
		}
		return null;
	}

	/**
	 * Handles the deliveries from {@code first} to the end of {@code deliveries} (the batch's, or a
	 * prefix of them that runs again after a rollback), in batches where it can, else alone.
	 * @param carried the deliveries of a rolled-back batch that run again, by index: they keep the
	 * listener's and the observation's start, so that each delivery is started and finished once
	 * @return the index of the next delivery to handle: {@code deliveries.size()}, or
	 * {@code results.length} when a failure failed every later delivery of the whole list too
	 */
	private int processRange(List<InboxDelivery> deliveries, int first, DeliveryResult[] results,
			Map<Integer, BatchEntry> carried) {
		int next = first;
		while (next < deliveries.size()) {
			if (!this.batches || next == deliveries.size() - 1
					|| System.nanoTime() - this.batchesPausedUntil < 0) {
				BatchEntry entry = carried.remove(next);
				next = (entry != null) ? handleAlone(entry, null, results) : processAlone(deliveries, next, results);
				continue;
			}
			try {
				next = processInBatch(deliveries, next, results, carried);
			}
			catch (BatchUnavailable ex) {
				for (int i = next; i < results.length; i++) {
					results[i] = DeliveryResult.failed(ex.failure);
				}
				next = results.length;
			}
		}
		if (next == results.length) {
			// failed to the end: so are the deliveries carried over to run again
			carried.values().forEach((entry) -> entry.notCommitted(Objects.requireNonNull(results[entry.index].failure())));
			carried.clear();
		}
		return next;
	}

	/**
	 * Handles one delivery alone; when the database is unavailable, fails it and every later one.
	 * @return the index of the next delivery to handle
	 */
	private int processAlone(List<InboxDelivery> deliveries, int index, DeliveryResult[] results) {
		InboxDelivery delivery = deliveries.get(index);
		try {
			results[index] = DeliveryResult.committed(this.single.process(delivery.consumer(), delivery.message()));
			return index + 1;
		}
		catch (UnrecordableDeliveryException ex) {
			results[index] = DeliveryResult.failed(ex);
			return index + 1;
		}
		catch (RuntimeException ex) {
			return failFrom(index, ex, results);
		}
	}

	/**
	 * Runs deliveries from {@code first} on in one transaction until one cannot be handled in it,
	 * commits, tells the listener, then handles that one alone.
	 * @return the index of the next delivery to handle
	 * @throws BatchUnavailable when the database is unavailable (nothing of the batch committed)
	 */
	private int processInBatch(List<InboxDelivery> deliveries, int first, DeliveryResult[] results,
			Map<Integer, BatchEntry> carried) {
		List<BatchEntry> entries = new ArrayList<>();
		BatchStop stop = null;
		TransactionConnection connection = new TransactionConnection();
		TransactionStatus status;
		try {
			status = this.recording.begin();
		}
		catch (RuntimeException ex) {
			// No transaction could begin (the database out of reach): nothing ran, and the deliveries
			// go back as when a delivery alone cannot begin one. Escaping here, this failed the lane,
			// which left the batch unacknowledged until its channel closed.
			return failFrom(first, ex, results);
		}
		try {
			this.writer.checkTransaction();
			connection.attach(this.resources.store().dataSource());
			stop = this.run.run(deliveries, first, entries, carried, status, connection);
		}
		catch (RuntimeException | Error ex) {
			// First, whatever it was: a transaction left open here keeps its pooled connection and the
			// batch's inbox rows locked for good, and every later copy of those messages waits on them.
			this.recording.rollbackQuietly(status);
			if (DeliveryFault.fatal(ex)) {
				throw ex;
			}
			batchFailed(entries, ex, connection);
			return processAlone(deliveries, first, results);
		}
		if (stop != null && stop.entry() != null) {
			// No savepoints: the batch rolls back as a whole and the deliveries before the one that
			// stopped it run again (their first run left nothing), then it is handled alone.
			this.recording.rollbackQuietly(status);
			BatchEntry stopped = stop.entry();
			if (logger.isDebugEnabled()) {
				logger.debug("Inbox batch rolled back at message " + stopped.id + " ("
						+ ((stop.handlerFailure() != null) ? "its handler failed: " + stop.handlerFailure() : "not recorded")
						+ "); " + entries.size() + " deliveries before it run again");
			}
			for (BatchEntry entry : entries) {
				carried.put(entry.index, entry);
				if (entry.outcome == InboxOutcome.PROCESSED) {
					entry.rolledBack();
				}
			}
			return afterRollback(deliveries, first, stopped, stop.handlerFailure(), results, carried);
		}
		try {
			this.recording.commit(status);
		}
		catch (RuntimeException ex) {
			batchFailed(entries, ex, connection);
			return processAlone(deliveries, first, results);
		}
		for (BatchEntry entry : entries) {
			InboxOutcome outcome = Objects.requireNonNull(entry.outcome);
			results[entry.index] = DeliveryResult.committed(outcome);
			entry.committed(outcome);
		}
		if (stop == null) {
			return deliveries.size();
		}
		// Poison: faulted alone, after what precedes it committed.
		return processAlone(deliveries, first + entries.size(), results);
	}

	/**
	 * After a batch rolled back because the delivery of {@code stopped} could not be handled in it:
	 * handles the deliveries before it again (carried over), then it alone, as a single delivery
	 * (a handler's failed attempt in the batch counts as its first).
	 * @return the index of the next delivery to handle
	 */
	private int afterRollback(List<InboxDelivery> deliveries, int first, BatchEntry stopped,
			@Nullable Throwable handlerFailure, DeliveryResult[] results, Map<Integer, BatchEntry> carried) {
		int index = stopped.index;
		int next;
		try {
			next = processRange(deliveries.subList(0, index), first, results, carried);
		}
		catch (RuntimeException | Error ex) {
			stopped.notCommitted((ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex));
			throw ex;
		}
		if (next > index) {
			// The database failed on the way: this delivery and every later one failed with it.
			stopped.notCommitted(Objects.requireNonNull(results[index].failure()));
			return next;
		}
		return handleAlone(stopped, handlerFailure, results);
	}

	/**
	 * Handles a delivery of a batch alone, in its observation: again as a whole, or, after its
	 * handler failed in the batch, its later attempts or its failure.
	 * @return the index of the next delivery to handle
	 */
	private int handleAlone(BatchEntry entry, @Nullable Throwable handlerFailure, DeliveryResult[] results) {
		int index = entry.index;
		try {
			InboxOutcome outcome = entry.observation.run(() -> this.single.handleAgain(entry.consumer, entry.message,
					entry.id, entry.payload, handlerFailure));
			results[index] = DeliveryResult.committed(outcome);
			entry.committed(outcome);
			return index + 1;
		}
		catch (UnrecordableDeliveryException ex) {
			results[index] = DeliveryResult.failed(ex);
			entry.notCommitted(ex);
			return index + 1;
		}
		catch (RuntimeException ex) {
			entry.notCommitted(ex);
			return failFrom(index, ex, results);
		}
	}

	/** Fails the delivery at {@code index} and every later one: the database is unavailable. */
	private static int failFrom(int index, RuntimeException failure, DeliveryResult[] results) {
		for (int i = index; i < results.length; i++) {
			results[i] = DeliveryResult.failed(failure);
		}
		return results.length;
	}

	/**
	 * Classifies a failure of the batch's transaction as a whole (the commit): an
	 * outage fails the deliveries (throws); anything else pauses batching, and the caller handles
	 * the deliveries alone.
	 * @throws BatchUnavailable when the database is unavailable
	 */
	private void batchFailed(List<BatchEntry> entries, Throwable failure, TransactionConnection connection) {
		if (failure instanceof BatchUnavailable unavailable) {
			entries.forEach((entry) -> entry.notCommitted(unavailable.failure));
			throw unavailable;
		}
		RuntimeException thrown = (failure instanceof RuntimeException runtime) ? runtime
				: new DataAccessResourceFailureException("The inbox batch failed", failure);
		entries.forEach((entry) -> entry.notCommitted(thrown));
		if (DatabaseFailures.unavailable(failure, connection.state())) {
			throw new BatchUnavailable(thrown);
		}
		logger.warn("An inbox batch failed (" + failure + "); handling deliveries one at a time for "
				+ TimeUnit.NANOSECONDS.toSeconds(BATCH_PAUSE_NANOS) + " s", failure);
		this.batchesPausedUntil = System.nanoTime() + BATCH_PAUSE_NANOS;
	}

}
