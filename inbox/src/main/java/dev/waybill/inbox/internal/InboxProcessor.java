package dev.waybill.inbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.DefaultTransactionDefinition;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.Recording.CannotRecord;
import dev.waybill.inbox.internal.Recording.RecordingFailure;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.internal.observation.InboxObservation;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.internal.DefaultConsumerOutbox;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;

/**
 * Handles one delivery for one consumer, once in effect, and tells the transport what to do with
 * it. Transport-neutral: a receive endpoint calls {@link #process(ConsumerRegistration, InboundMessage)}
 * for every delivery and acknowledges it when the call returns, whatever the {@link InboxOutcome}.
 * When the call throws {@link UnrecordableDeliveryException} the endpoint moves the delivery to the
 * error queue itself; when it throws anything else the database is unavailable, nothing was
 * recorded, and the endpoint rejects the delivery with requeue.
 * <p>
 * In order:
 * <ol>
 * <li>A message that can never be handled goes to the consumer's error queue at once
 * ({@link InboxOutcome#FAULTED}): no message id or one that is not a UUID (no inbox row is
 * written), a type other than the consumer's, a body the serializer cannot read into the
 * consumer's payload class (its inbox row is marked faulted).</li>
 * <li>In one transaction of the application's transaction manager (so JPA handlers share it) the
 * inbox row is inserted or, for a redelivery, counted and locked; a message the consumer processed
 * already is {@link InboxOutcome#DUPLICATE}, one it gave up already is
 * {@link InboxOutcome#ALREADY_FAULTED}, and the handler is not called. Otherwise the handler runs,
 * its publications are tied to the inbound message (the consumer outbox), the row is marked
 * processed and everything commits together: {@link InboxOutcome#PROCESSED}. A concurrent delivery
 * of the same message waits on the row lock and then finds it processed or faulted.</li>
 * <li>A handler that throws rolls all of that back. When the exception, or one in its cause chain,
 * is one the consumer {@linkplain ConsumerRegistration#ignore() ignores}, one new transaction marks
 * the inbox row processed with the exception as its note ({@link InboxOutcome#PROCESSED}); when it
 * is one the consumer {@linkplain ConsumerRegistration#neverRetry() never retries}, the message goes
 * to the error queue at once. Otherwise it is retried in process, each time in a fresh
 * transaction, {@code immediateRetries} times (the consumer's {@link EndpointRetry} when it has
 * one, else the processor's); then one new transaction records the failed attempt
 * and its error on the inbox row and writes, through the outbox, either a redelivery of the
 * unchanged message to the consumer's queue after the {@link RetryPolicy} backoff
 * ({@link InboxOutcome#RETRY_SCHEDULED}), or, at the policy's maximum attempts, a copy to the
 * error queue with the exception in its headers ({@link InboxHeaders}), marking the row faulted
 * ({@link InboxOutcome#FAULTED}).</li>
 * </ol>
 * A row is processed or faulted, never both, and either is final: a faulted message is not handled
 * or forwarded again until an operator clears the fault ({@link InboxAdmin#clearFault}). The inbox
 * row's failed attempts are {@link MessageContext#redeliveryCount()}.
 * <p>
 * Failures are classified once ({@code DatabaseFailures}): when the handler, the commit or the
 * rollback fails because the database connection was lost (by the whole cause chain, and by asking
 * the transaction's connection whether it is still valid), nothing is recorded and no attempt is
 * counted; the call throws and the delivery is retried. So too when Waybill's own statements are
 * refused because the database takes no writes at all (a read-only standby, or
 * {@code default_transaction_read_only}). When they fail for another reason (the database refuses
 * the inbox row or the fault), they are tried three times;
 * then the message goes to the error queue through the outbox alone with the reason in
 * {@link InboxHeaders#FAULT_REASON}, or, when the database refuses that too,
 * {@link UnrecordableDeliveryException} hands it to the transport. Nothing is requeued forever
 * except during an outage.
 * <p>
 * Thread-safe; one instance serves every consumer.
 *
 * @since 0.1
 */
public final class InboxProcessor implements DeliveryProcessor {

	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	/** PostgreSQL refuses every statement after a failed one in a transaction. */
	private static final String IN_FAILED_SQL_TRANSACTION = "25P02";

	private final PlatformTransactionManager transactionManager;

	private final TransactionDefinition transaction;

	private final InboxStore store;

	private final OutboxWriter writer;

	private final OutboxPublisher publisher;

	private final ConsumerOutbox consumerOutbox;

	private final MessageSerializer serializer;

	private final RelayWakeUp wakeUp;

	private final int immediateRetries;

	private final InboxListeners listeners;

	private final Recording recording;

	private final FailureRecorder failures;

	/** How long batching pauses after a batch failed for a reason that is not an outage. */
	private static final long BATCH_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** Until when {@link #processBatch} handles each delivery alone (System.nanoTime()). */
	private volatile long batchesPausedUntil = System.nanoTime();

	private volatile InboxObservation observation = InboxObservation.NONE;

	/** The types each queue's consumers handle, quoted, for fault reasons: see {@link #describeQueues}. */
	private final Map<String, String> queueTypes = new ConcurrentHashMap<>();

	/** The payload type of each message type each queue's consumers handle: see {@link #describeQueues}. */
	private final Map<String, Map<String, String>> queuePayloads = new ConcurrentHashMap<>();

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
		this.transactionManager = Objects.requireNonNull(transactionManager, "transactionManager must not be null");
		// Always a transaction of its own: joining a caller's would tie the inbox to its outcome.
		this.transaction = new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
		this.consumerOutbox = Objects.requireNonNull(consumerOutbox, "consumerOutbox must not be null");
		this.serializer = Objects.requireNonNull(serializer, "serializer must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.immediateRetries = immediateRetries;
		this.listeners = new InboxListeners(listener);
		this.recording = new Recording(transactionManager);
		this.failures = new FailureRecorder(this.recording, this.store, this.writer, this.serializer, this.wakeUp,
				Objects.requireNonNull(retryPolicy, "retryPolicy must not be null"), this.listeners);
	}

	/**
	 * Sets the host clock the processor reads (the times in the headers it writes); for tests that
	 * skew it. Redeliveries fall due by the database's clock whatever this says.
	 * @param clock the clock
	 * @return this processor
	 */
	InboxProcessor clock(Clock clock) {
		this.failures.clock(Objects.requireNonNull(clock, "clock must not be null"));
		return this;
	}

	/**
	 * Sets how the processor observes each delivery ({@code waybill.inbox.process}, and the MDC
	 * entries); {@link InboxObservation#NONE} (the MDC entries only) by default.
	 * @param observation the observation
	 * @since 0.1
	 */
	public void setObservation(InboxObservation observation) {
		this.observation = Objects.requireNonNull(observation, "observation must not be null");
		this.failures.observation(observation);
	}

	/**
	 * Handles one delivery; see the class description.
	 * @param consumer the consumer of the queue the message arrived on
	 * @param message the delivery
	 * @return what was committed; acknowledge the delivery
	 * @throws UnrecordableDeliveryException when the database refuses to record anything about the
	 * delivery (move it to the error queue with the exception's reason, then acknowledge it)
	 * @throws org.springframework.dao.DataAccessException or another runtime exception when the
	 * database is unavailable (nothing was recorded; reject the delivery with requeue)
	 */
	public InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message) {
		Objects.requireNonNull(consumer, "consumer must not be null");
		Objects.requireNonNull(message, "message must not be null");
		return this.observation.observe(consumer, message, () -> processListened(consumer, message));
	}

	/**
	 * Handles several deliveries, in order, in as few transactions as it can: one transaction
	 * records every delivery and marks its message processed in one statement, runs the handlers
	 * one after another, and commits once (the commit makes the marks true). A later copy of a
	 * message in the batch takes its first copy's outcome ({@link InboxOutcome#DUPLICATE} when that
	 * processed it) in memory; its receipt is counted by the recording statement. Poison ends the
	 * batch there: what precedes it commits and it is faulted alone. A delivery whose handler throws
	 * (or whose own inbox statement is refused) rolls the whole batch back, with no savepoints: the
	 * deliveries before it are handled again (their handlers run a second time; the first run left
	 * nothing), then it alone, exactly as {@link #process} does (its handler's failed attempt counts
	 * as the first), and the deliveries after it start the next batch. So deliveries of one ordering
	 * key stay in order, and a failing handler's failure is recorded for its own message only. When
	 * the database is unavailable nothing of the uncommitted batch is recorded: that delivery and
	 * every one after it fail with the outage.
	 * When the database refuses the marks or the commit for another reason, nothing of the batch is
	 * recorded either; batching pauses for a while and its deliveries are handled alone.
	 * <p>
	 * Batches only with a JDBC transaction manager ({@link DataSourceTransactionManager}) and the
	 * default consumer outbox; otherwise, and for a single delivery, each delivery is handled by
	 * {@link #process}.
	 * @param deliveries the deliveries, in the order they were received
	 * @return what happened to each, at the same index
	 * @since 0.1
	 */
	public List<DeliveryResult> processBatch(List<InboxDelivery> deliveries) {
		Objects.requireNonNull(deliveries, "deliveries must not be null");
		DeliveryResult[] results = new DeliveryResult[deliveries.size()];
		Map<Integer, BatchEntry> carried = new HashMap<>();
		processRange(deliveries, 0, results, carried);
		return List.of(results);
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
			if (!batches() || next == deliveries.size() - 1 || System.nanoTime() - this.batchesPausedUntil < 0) {
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
			carried.values().forEach((entry) -> notCommitted(entry, Objects.requireNonNull(results[entry.index].failure())));
			carried.clear();
		}
		return next;
	}

	private boolean batches() {
		return this.transactionManager instanceof DataSourceTransactionManager
				&& this.consumerOutbox instanceof DefaultConsumerOutbox;
	}

	/**
	 * Tells why {@link #processBatch} handles each delivery in a transaction of its own, if it
	 * does: batches need a JDBC transaction manager and the default consumer outbox.
	 * @return the reason, or {@code null} when deliveries are batched
	 * @since 0.1
	 */
	public @Nullable String whyNotBatched() {
		if (!(this.transactionManager instanceof DataSourceTransactionManager)) {
			return "batched transactions need a JDBC transaction manager (DataSourceTransactionManager or "
					+ "JdbcTransactionManager), and the application's is " + this.transactionManager.getClass().getSimpleName();
		}
		if (!(this.consumerOutbox instanceof DefaultConsumerOutbox)) {
			return "batched transactions need Waybill's own consumer outbox, and the application declares "
					+ this.consumerOutbox.getClass().getSimpleName();
		}
		return null;
	}

	/**
	 * Handles one delivery alone; when the database is unavailable, fails it and every later one.
	 * @return the index of the next delivery to handle
	 */
	private int processAlone(List<InboxDelivery> deliveries, int index, DeliveryResult[] results) {
		InboxDelivery delivery = deliveries.get(index);
		try {
			results[index] = DeliveryResult.committed(process(delivery.consumer(), delivery.message()));
			return index + 1;
		}
		catch (UnrecordableDeliveryException ex) {
			results[index] = DeliveryResult.failed(ex);
			return index + 1;
		}
		catch (RuntimeException ex) {
			for (int i = index; i < results.length; i++) {
				results[i] = DeliveryResult.failed(ex);
			}
			return results.length;
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
			status = this.transactionManager.getTransaction(this.transaction);
		}
		catch (RuntimeException ex) {
			// No transaction could begin (the database out of reach): nothing ran, and the deliveries
			// go back as when a delivery alone cannot begin one. Escaping here, this failed the lane,
			// which left the batch unacknowledged until its channel closed.
			for (int i = first; i < results.length; i++) {
				results[i] = DeliveryResult.failed(ex);
			}
			return results.length;
		}
		try {
			this.writer.checkTransaction();
			connection.attach(this.store.dataSource());
			stop = runBatch(deliveries, first, entries, carried, status, connection);
		}
		catch (RuntimeException | Error ex) {
			// First, whatever it was: a transaction left open here keeps its pooled connection and the
			// batch's inbox rows locked for good, and every later copy of those messages waits on them.
			rollbackQuietly(status);
			if (fatal(ex)) {
				throw ex;
			}
			batchFailed(entries, ex, connection);
			return processAlone(deliveries, first, results);
		}
		if (stop != null && stop.entry != null) {
			// No savepoints: the batch rolls back as a whole and the deliveries before the one that
			// stopped it run again (their first run left nothing), then it is handled alone.
			rollbackQuietly(status);
			if (logger.isDebugEnabled()) {
				logger.debug("Inbox batch rolled back at message " + stop.entry.id + " ("
						+ ((stop.handlerFailure != null) ? "its handler failed: " + stop.handlerFailure : "not recorded")
						+ "); " + entries.size() + " deliveries before it run again");
			}
			for (BatchEntry entry : entries) {
				carried.put(entry.index, entry);
				if (entry.outcome == InboxOutcome.PROCESSED) {
					rolledBack(entry);
				}
			}
			return afterRollback(deliveries, first, stop.entry, stop.handlerFailure, results, carried);
		}
		try {
			this.transactionManager.commit(status);
		}
		catch (RuntimeException ex) {
			batchFailed(entries, ex, connection);
			return processAlone(deliveries, first, results);
		}
		for (BatchEntry entry : entries) {
			results[entry.index] = DeliveryResult.committed(entry.outcome);
			committed(entry, entry.outcome);
		}
		if (stop == null) {
			return deliveries.size();
		}
		// Poison: faulted alone, after what precedes it committed.
		return processAlone(deliveries, first + entries.size(), results);
	}

	/**
	 * After a batch rolled back because the delivery of {@code stopped} could not be handled in it:
	 * handles the deliveries before it again (carried over), then it alone, as {@link #process}
	 * does (a handler's failed attempt in the batch counts as its first).
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
			notCommitted(stopped, (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex));
			throw ex;
		}
		if (next > index) {
			// The database failed on the way: this delivery and every later one failed with it.
			notCommitted(stopped, Objects.requireNonNull(results[index].failure()));
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
			InboxOutcome outcome = entry.observation.run(() -> afterBatchFailure(entry, handlerFailure));
			results[index] = DeliveryResult.committed(outcome);
			committed(entry, outcome);
			return index + 1;
		}
		catch (UnrecordableDeliveryException ex) {
			results[index] = DeliveryResult.failed(ex);
			notCommitted(entry, ex);
			return index + 1;
		}
		catch (RuntimeException ex) {
			notCommitted(entry, ex);
			for (int i = index; i < results.length; i++) {
				results[i] = DeliveryResult.failed(ex);
			}
			return results.length;
		}
	}

	@SuppressWarnings("unchecked")
	private <T> InboxOutcome afterBatchFailure(BatchEntry entry, @Nullable Throwable handlerFailure) {
		ConsumerRegistration<T> consumer = (ConsumerRegistration<T>) entry.consumer;
		try {
			if (handlerFailure == null) {
				// Waybill's own statement failed in the batch: the whole delivery again, alone.
				return deliver(consumer, entry.message, entry.id);
			}
			return handleWithRetries(consumer, entry.message, entry.id, (T) entry.payload, handlerFailure);
		}
		catch (CannotRecord ex) {
			return this.failures.faultUnrecorded(consumer, entry.message, entry.id, ex.getCause());
		}
	}

	/**
	 * Runs the batch's deliveries in the open transaction. Every delivery up to the first poison one
	 * is recorded, and its message marked processed, by one statement
	 * ({@link InboxStore#receive(List)}): the commit makes the marks true. Messages processed or
	 * faulted before only have their receipts counted. Then the handlers run, one after another. A
	 * later copy of a message in the batch is answered in memory, from its first copy's outcome.
	 * When a delivery cannot be handled in the batch the run stops there, and the caller rolls the
	 * transaction back.
	 * @return where and why the batch stopped early, or {@literal null} when every delivery ran
	 * @throws BatchUnavailable when the database is unavailable
	 */
	private @Nullable BatchStop runBatch(List<InboxDelivery> deliveries, int first, List<BatchEntry> entries,
			Map<Integer, BatchEntry> carried, TransactionStatus status, TransactionConnection connection) {
		List<Object> payloads = new ArrayList<>();
		List<InboxStore.Key> keys = new ArrayList<>();
		Map<InboxStore.Key, Integer> receipts = new LinkedHashMap<>();
		for (int i = first; i < deliveries.size(); i++) {
			Object payload = readInBatch(deliveries.get(i));
			if (payload == null) {
				// Poison: faulted alone, by process(), after what precedes it committed.
				break;
			}
			InboxStore.Key key = key(deliveries.get(i));
			payloads.add(payload);
			keys.add(key);
			receipts.merge(key, 1, Integer::sum);
		}
		int end = first + payloads.size();
		if (payloads.isEmpty()) {
			return new BatchStop(null, null);
		}
		Map<InboxStore.Key, InboxStore.BatchReceipt> marked = batchStatement(
				() -> this.store.receive(received(receipts, receipts.keySet())), connection);
		Map<InboxStore.Key, InboxStore.Receipt> earlier = batchStatement(() -> this.store.countReceipts(received(receipts,
				receipts.keySet().stream().filter((key) -> !marked.containsKey(key)).toList())), connection);
		Map<InboxStore.Key, BatchEntry> firstCopies = new HashMap<>();
		for (int i = first; i < end; i++) {
			InboxDelivery delivery = deliveries.get(i);
			InboxStore.Key key = keys.get(i - first);
			BatchEntry ranBefore = carried.remove(i);
			BatchEntry entry = new BatchEntry(i, delivery.consumer(), delivery.message(), key.messageId(),
					payloads.get(i - first), (ranBefore != null) ? ranBefore.observation
							: this.observation.start(delivery.consumer(), delivery.message()));
			if (ranBefore != null) {
				entry.started = ranBefore.started;
			}
			else {
				started(entry);
			}
			BatchEntry firstCopy = firstCopies.putIfAbsent(key, entry);
			if (firstCopy != null) {
				entry.outcome = (firstCopy.outcome == InboxOutcome.ALREADY_FAULTED) ? InboxOutcome.ALREADY_FAULTED
						: InboxOutcome.DUPLICATE;
				entries.add(entry);
				continue;
			}
			InboxStore.BatchReceipt receipt = marked.get(key);
			if (receipt == null) {
				entry.outcome = earlier.get(key).processed() ? InboxOutcome.DUPLICATE : InboxOutcome.ALREADY_FAULTED;
				entries.add(entry);
				continue;
			}
			BatchStop stop;
			try {
				stop = entry.observation.run(() -> runEntry(entry, receipt.attempts(), status, connection));
			}
			catch (RuntimeException | Error ex) {
				notCommitted(entry, (ex instanceof BatchUnavailable unavailable) ? unavailable.failure
						: new IllegalStateException(ex));
				throw ex;
			}
			if (stop != null) {
				((DefaultConsumerOutbox) this.consumerOutbox).discardInbound();
				return new BatchStop(entry, stop.handlerFailure);
			}
			entries.add(entry);
		}
		return (end < deliveries.size()) ? new BatchStop(null, null) : null;
	}

	private static List<InboxStore.Received> received(Map<InboxStore.Key, Integer> receipts,
			Collection<InboxStore.Key> keys) {
		List<InboxStore.Received> received = new ArrayList<>(keys.size());
		for (InboxStore.Key key : keys) {
			received.add(new InboxStore.Received(key, receipts.get(key)));
		}
		return received;
	}

	private String handledTypes(ConsumerRegistration<?> consumer) {
		String types = this.queueTypes.get(consumer.queue());
		return (types != null) ? types : "'" + consumer.messageType() + "'";
	}

	/**
	 * Why a message of a type the queue does not handle did not go to the handler of one of its
	 * Waybill supertypes ({@link MessageTypes#SUPERTYPES_HEADER}): that handler's payload type is an
	 * interface or abstract class, and the consumer has no class of the delivered type to read the
	 * body into (see {@link ConsumerRegistry#dispatch}); else an empty string.
	 */
	private String unreadableSubtype(ConsumerRegistration<?> consumer, InboundMessage message) {
		if (!(message.headers().get(MessageTypes.SUPERTYPES_HEADER) instanceof String supertypes)) {
			return "";
		}
		Map<String, String> payloads = this.queuePayloads.getOrDefault(consumer.queue(),
				Map.of(consumer.messageType(), consumer.payloadType().getTypeName()));
		for (String supertype : supertypes.split(",")) {
			String payload = payloads.get(supertype.trim());
			if (payload != null) {
				return ", its supertype '" + supertype.trim() + "' as " + payload + ", an interface or abstract "
						+ "class the body cannot be read into without a class of type '" + DeliveryFault.shown(message.messageType())
						+ "', and this service has none (add that class, or make the handler's type concrete)";
			}
		}
		return "";
	}

	/**
	 * Why the delivery's headers could not be read, when the receive endpoint set them aside (see
	 * {@link InboxHeaders#UNREADABLE_HEADERS}), else {@literal null}.
	 */
	private static @Nullable String unreadableHeaders(InboundMessage message) {
		if (!message.headers().containsKey(InboxHeaders.UNREADABLE_HEADERS)) {
			return null;
		}
		Object reason = message.headers().get(InboxHeaders.UNREADABLE_HEADERS_REASON);
		return (reason != null) ? reason.toString() : "its headers cannot be read";
	}

	/** The payload of a delivery of a batch, or {@literal null} when it is poison. */
	private @Nullable Object readInBatch(InboxDelivery delivery) {
		ConsumerRegistration<?> consumer = delivery.consumer();
		InboundMessage message = delivery.message();
		if (canonicalUuid(message.messageId()) == null || !consumer.messageType().equals(message.messageType())
				|| unreadableHeaders(message) != null) {
			return null;
		}
		try {
			return read(consumer, message.body());
		}
		catch (Exception | Error ex) {
			if (ex instanceof Error error && fatal(error)) {
				throw error;
			}
			// poison, an Error too (see deliver): faulted alone, by process()
			return null;
		}
	}

	private static InboxStore.Key key(InboxDelivery delivery) {
		return new InboxStore.Key(Objects.requireNonNull(canonicalUuid(delivery.message().messageId())),
				delivery.consumer().consumerId());
	}

	/**
	 * Runs one of the batch's own statements.
	 * @throws BatchUnavailable when the database is unavailable; any other failure fails the batch
	 */
	private static <R> R batchStatement(Supplier<R> statement, TransactionConnection connection) {
		try {
			return statement.get();
		}
		catch (RuntimeException ex) {
			if (DatabaseFailures.unavailableToRecord(ex, connection.check())) {
				throw new BatchUnavailable(ex);
			}
			throw ex;
		}
	}

	/**
	 * Runs one delivery of a batch.
	 * @param attempts its failed deliveries recorded before
	 * @return why it cannot be handled in the batch, or {@literal null} when its outcome is set
	 * @throws BatchUnavailable when the database is unavailable
	 */
	private <T> @Nullable BatchStop runEntry(BatchEntry entry, int attempts, TransactionStatus status,
			TransactionConnection connection) {
		@SuppressWarnings("unchecked")
		ConsumerRegistration<T> consumer = (ConsumerRegistration<T>) entry.consumer;
		String consumerId = consumer.consumerId();
		this.consumerOutbox.bindInbound(entry.id, consumerId);
		MessageContext context = new HandlerContext(entry.id, consumer.messageType(), entry.message, consumerId,
				attempts, 0, this.publisher);
		try {
			@SuppressWarnings("unchecked")
			T payload = (T) entry.payload;
			consumer.handler().handle(payload, context);
		}
		catch (Exception | Error ex) {
			if (fatal(ex)) {
				throw (Error) ex;
			}
			// A connection lost under the handler is no fault of the message.
			if (DatabaseFailures.unavailable(ex, connection.check())) {
				throw new BatchUnavailable(ex);
			}
			return new BatchStop(entry, ex);
		}
		if (status.isRollbackOnly()) {
			// as the commit of a transaction of its own would have thrown
			return new BatchStop(entry, new UnexpectedRollbackException(
					"Transaction silently rolled back because it has been marked as rollback-only"));
		}
		if (transactionAborted()) {
			// A statement of the handler failed and it caught the exception. Unbatched, the inbox mark
			// after the handler tells; here the next statement may be the next handler's (which would
			// take the blame) or the commit (which PostgreSQL turns into a silent rollback of the
			// whole batch, its deliveries then acknowledged as processed).
			return new BatchStop(entry, new IllegalStateException("The handler returned normally, but a "
					+ "statement it ran failed and aborted its transaction (SQLSTATE 25P02); "
					+ "was a database exception caught in the handler?"));
		}
		try {
			// marked processed with the others of the batch, before the commit
			((DefaultConsumerOutbox) this.consumerOutbox).writeInboundNow();
		}
		catch (RuntimeException ex) {
			return recordingFailed(ex, connection);
		}
		entry.outcome = InboxOutcome.PROCESSED;
		return null;
	}

	/**
	 * Whether the current transaction's connection is in a failed transaction (a statement failed,
	 * PostgreSQL refuses every later one), as the driver knows it without a round trip.
	 */
	private boolean transactionAborted() {
		Connection connection = DataSourceUtils.getConnection(this.store.dataSource());
		try {
			return DatabaseFailures.transactionAborted(connection);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.store.dataSource());
		}
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

	private static BatchStop recordingFailed(RuntimeException failure, TransactionConnection connection) {
		if (DatabaseFailures.unavailableToRecord(failure, connection.check())) {
			throw new BatchUnavailable(failure);
		}
		return new BatchStop(null, null);
	}

	/**
	 * Classifies a failure of the batch's transaction as a whole (the commit): an
	 * outage fails the deliveries (throws); anything else pauses batching, and the caller handles
	 * the deliveries alone.
	 * @throws BatchUnavailable when the database is unavailable
	 */
	private void batchFailed(List<BatchEntry> entries, Throwable failure, TransactionConnection connection) {
		if (failure instanceof BatchUnavailable unavailable) {
			stopObservations(entries, unavailable.failure);
			throw unavailable;
		}
		RuntimeException thrown = (failure instanceof RuntimeException runtime) ? runtime
				: new DataAccessResourceFailureException("The inbox batch failed", failure);
		stopObservations(entries, thrown);
		if (DatabaseFailures.unavailable(failure, connection.state())) {
			throw new BatchUnavailable(thrown);
		}
		logger.warn("An inbox batch failed (" + failure + "); handling deliveries one at a time for "
				+ TimeUnit.NANOSECONDS.toSeconds(BATCH_PAUSE_NANOS) + " s", failure);
		this.batchesPausedUntil = System.nanoTime() + BATCH_PAUSE_NANOS;
	}

	private void stopObservations(List<BatchEntry> entries, RuntimeException failure) {
		for (BatchEntry entry : entries) {
			notCommitted(entry, failure);
		}
	}

	/**
	 * Whether a failure must end the consuming thread's work rather than count as the handler's
	 * failure: the JVM's own errors, except a {@link StackOverflowError}. That one is thrown by the
	 * handler's own code (a recursion, typically over a deeply nested message) and has unwound by
	 * the time it arrives here, so it is retried and faulted like any handler failure; rethrown, it
	 * would come back with every redelivery of the message, which would never reach the error queue.
	 */
	private static boolean fatal(Throwable failure) {
		return failure instanceof VirtualMachineError && !(failure instanceof StackOverflowError);
	}

	private void rollbackQuietly(TransactionStatus status) {
		try {
			this.transactionManager.rollback(status);
		}
		catch (RuntimeException ex) {
			logger.debug("Rollback of an inbox batch failed: " + ex);
		}
	}

	private void started(BatchEntry entry) {
		entry.started = System.nanoTime();
		this.listeners.started(entry.consumer, entry.message);
	}

	private void rolledBack(BatchEntry entry) {
		this.listeners.rolledBack(entry.consumer, entry.message);
	}

	private void committed(BatchEntry entry, InboxOutcome outcome) {
		this.listeners.delivered(entry.consumer, entry.message, outcome);
		finished(entry, outcome);
		entry.observation.stop(outcome, null);
	}

	private void notCommitted(BatchEntry entry, RuntimeException failure) {
		finished(entry, null);
		entry.observation.stop(null, failure);
	}

	private void finished(BatchEntry entry, @Nullable InboxOutcome outcome) {
		this.listeners.finished(entry.consumer, entry.message, outcome, System.nanoTime() - entry.started);
	}

	private InboxOutcome processListened(ConsumerRegistration<?> consumer, InboundMessage message) {
		long started = System.nanoTime();
		InboxOutcome outcome = null;
		this.listeners.started(consumer, message);
		try {
			outcome = processTyped(consumer, message);
			this.listeners.delivered(consumer, message, outcome);
			return outcome;
		}
		finally {
			this.listeners.finished(consumer, message, outcome, System.nanoTime() - started);
		}
	}

	private <T> InboxOutcome processTyped(ConsumerRegistration<T> consumer, InboundMessage message) {
		UUID id = canonicalUuid(message.messageId());
		try {
			return deliver(consumer, message, id);
		}
		catch (CannotRecord ex) {
			return this.failures.faultUnrecorded(consumer, message, id, ex.getCause());
		}
	}

	private <T> InboxOutcome deliver(ConsumerRegistration<T> consumer, InboundMessage message, @Nullable UUID id) {
		if (id == null) {
			return this.failures.faultWithoutId(consumer, message);
		}
		if (!consumer.messageType().equals(message.messageType())) {
			String type = message.messageType();
			String reason = (type == null || type.isEmpty())
					? "the message has no type (AMQP property 'type'); queue '" + consumer.queue() + "' handles "
							+ handledTypes(consumer)
					: "no handler for type '" + DeliveryFault.shown(type) + "' on queue '" + consumer.queue() + "'; it handles "
							+ handledTypes(consumer) + unreadableSubtype(consumer, message);
			return this.failures.fail(consumer, message, id, DeliveryFault.poison(reason, null));
		}
		String unreadable = unreadableHeaders(message);
		if (unreadable != null) {
			return this.failures.fail(consumer, message, id, DeliveryFault.poison(unreadable + " (kept, undecoded, in header '"
					+ InboxHeaders.UNREADABLE_HEADERS + "')", null));
		}
		T payload;
		try {
			payload = read(consumer, message.body());
		}
		catch (Exception | Error ex) {
			// An Error too: what the payload's constructor or a deserializer throws (an AssertionError,
			// an ExceptionInInitializerError, a StackOverflowError on a deeply nested body) is the
			// message's. Thrown on, it left the delivery, and its lane's batch, unacknowledged until
			// the channel closed, and every redelivery failed the same way.
			if (ex instanceof Error error && fatal(error)) {
				throw error;
			}
			return this.failures.fail(consumer, message, id, unreadable(consumer, message, ex));
		}
		if (payload == null) {
			return this.failures.fail(consumer, message, id, unreadable(consumer, message, null));
		}
		return handleWithRetries(consumer, message, id, payload, null);
	}

	/**
	 * Runs the handler in a transaction of its own, retrying it in process and recording its
	 * failure as the class description says.
	 * @param firstFailure how the handler failed in a batch (its first attempt), or {@literal null}
	 */
	private <T> InboxOutcome handleWithRetries(ConsumerRegistration<T> consumer, InboundMessage message, UUID id,
			T payload, @Nullable Throwable firstFailure) {
		int retry = 0;
		int recordingTries = 0;
		Throwable pending = firstFailure;
		while (true) {
			Throwable failure = pending;
			pending = null;
			if (failure == null) {
				TransactionConnection connection = new TransactionConnection();
				try {
					return handle(consumer, message, id, payload, retry, connection);
				}
				catch (RecordingFailure ex) {
					// Waybill's own statements failed; the handler's work, if it ran, rolled back.
					if (DatabaseFailures.unavailableToRecord(ex, connection.state())) {
						throw Recording.unavailable(consumer, id, ex.getCause());
					}
					recordingTries = Recording.nextTry(consumer, id, recordingTries, ex.getCause());
					continue;
				}
				catch (RuntimeException | Error ex) {
					if (fatal(ex)) {
						throw ex;
					}
					failure = failureOf(ex);
					if (DatabaseFailures.unavailable(ex, connection.state())) {
						throw Recording.unavailable(consumer, id, failure);
					}
				}
			}
			if (failure instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			Throwable ignored = match(consumer.ignore(), failure);
			if (ignored != null) {
				return ignore(consumer, id, ignored, failure);
			}
			if (match(consumer.neverRetry(), failure) != null) {
				return this.failures.fail(consumer, message, id, DeliveryFault.poison(
						"the handler threw an exception the consumer never retries", failure), payload);
			}
			if (retry >= immediateRetries(consumer)) {
				return this.failures.fail(consumer, message, id, DeliveryFault.handlerFailed(failure), payload);
			}
			retry++;
			if (logger.isDebugEnabled()) {
				logger.debug("Retrying message " + id + " on queue '" + consumer.queue() + "' at once after: " + failure);
			}
		}
	}

	/**
	 * What failed the delivery's transaction: the handler's exception, or, when the rollback failed
	 * too (PostgreSQL ended the connection, e.g. for {@code idle_in_transaction_session_timeout}),
	 * the failure that made it roll back rather than {@code JDBC rollback failed}.
	 */
	private static Throwable failureOf(Throwable thrown) {
		Throwable failure = thrown;
		if (failure instanceof TransactionSystemException end && end.getApplicationException() != null) {
			failure = end.getApplicationException();
		}
		return (failure instanceof HandlerFailure || failure instanceof RecordingFailure) && failure.getCause() != null
				? failure.getCause() : failure;
	}

	private <T> InboxOutcome handle(ConsumerRegistration<T> consumer, InboundMessage message, UUID id, T payload,
			int retry, TransactionConnection connection) {
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
					throw new HandlerFailure(new IllegalStateException("The handler returned normally, but a "
							+ "statement it ran failed and aborted its transaction (SQLSTATE 25P02); "
							+ "was a database exception caught in the handler?", ex));
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
	private InboxOutcome ignore(ConsumerRegistration<?> consumer, UUID id, Throwable ignored, Throwable failure) {
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

	private int immediateRetries(ConsumerRegistration<?> consumer) {
		EndpointRetry own = consumer.retry();
		return (own != null) ? own.immediate() : this.immediateRetries;
	}

	/** The failure, or the first of its causes, that is an instance of one of the classes. */
	private static @Nullable Throwable match(List<Class<? extends Throwable>> classes, Throwable failure) {
		if (classes.isEmpty()) {
			return null;
		}
		int depth = 0;
		for (Throwable current = failure; current != null && depth < 32; current = current.getCause(), depth++) {
			for (Class<? extends Throwable> type : classes) {
				if (type.isInstance(current)) {
					return current;
				}
			}
		}
		return null;
	}

	/**
	 * Sets the frame budget of the copies the inbox forwards (redeliveries, faults), read at each
	 * one: a redelivery whose headers would not fit faults the message at once, and a fault copy is
	 * shortened until it fits; {@link Transport#DEFAULT_MAX_HEADER_BYTES} by default.
	 * @param maxHeaderBytes typically {@link Transport#maxHeaderBytes()}; it must answer without
	 * contacting the broker
	 * @since 0.1
	 */
	public void setMaxHeaderBytes(LongSupplier maxHeaderBytes) {
		this.failures.maxHeaderBytes(Objects.requireNonNull(maxHeaderBytes, "maxHeaderBytes must not be null"));
	}

	/**
	 * Turns fault events on or off: when on, a message given up after its handler failed every
	 * attempt is published as a {@link Fault} to the exchange {@code fault:<message type>}, through
	 * the consumer outbox, in the transaction that records the fault.
	 * @param publishFaults whether to publish fault events ({@code waybill.inbox.faults.publish})
	 * @since 0.1
	 */
	public void setPublishFaults(boolean publishFaults) {
		this.failures.publishFaults(publishFaults);
	}

	/**
	 * Tells the processor which message types the consumers of each queue handle, so that a fault
	 * for a type none of them handles names them all (without it, the fault names the type of the
	 * consumer the delivery fell back to). The receive endpoint calls it with its consumers.
	 * @param consumers the consumers by queue
	 * @since 0.1
	 */
	public void describeQueues(ConsumerRegistry consumers) {
		consumers.endpoints().forEach((queue, registrations) -> this.queueTypes.put(queue, registrations.stream()
			.map((registration) -> "'" + registration.messageType() + "'")
			.distinct()
			.collect(Collectors.joining(", "))));
		consumers.endpoints().forEach((queue, registrations) -> {
			Map<String, String> payloads = new HashMap<>();
			registrations.forEach((registration) -> payloads.putIfAbsent(registration.messageType(),
					registration.payloadType().getTypeName()));
			this.queuePayloads.put(queue, Map.copyOf(payloads));
		});
	}

	@SuppressWarnings("unchecked") // the serializer read the body into the consumer's payload type
	private <T> @Nullable T read(ConsumerRegistration<T> consumer, byte[] body) throws Exception {
		if (consumer.payloadType() instanceof Class<?>) {
			return this.serializer.deserialize(body, consumer.payloadClass());
		}
		return (T) this.serializer.deserialize(body, consumer.payloadType());
	}

	private static DeliveryFault unreadable(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable Throwable ex) {
		return DeliveryFault.poison("the body cannot be read as " + consumer.payloadType().getTypeName() + " (content type '"
				+ DeliveryFault.shown(message.contentType()) + "')", ex);
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

	/**
	 * Carries a handler's exception out of the transaction callback, which rolls back on it.
	 */
	private static final class HandlerFailure extends RuntimeException {

		HandlerFailure(Exception cause) {
			super(cause);
		}

	}

	/** One delivery of a batch, until its outcome committed. */
	private static final class BatchEntry {

		final int index;

		final ConsumerRegistration<?> consumer;

		final InboundMessage message;

		final UUID id;

		final Object payload;

		final InboxObservation.Pending observation;

		long started;

		@Nullable InboxOutcome outcome;

		BatchEntry(int index, ConsumerRegistration<?> consumer, InboundMessage message, UUID id, Object payload,
				InboxObservation.Pending observation) {
			this.index = index;
			this.consumer = consumer;
			this.message = message;
			this.id = id;
			this.payload = payload;
			this.observation = observation;
		}

	}

	/**
	 * Where a batch stopped early: at a delivery to handle alone ({@code entry} null: from scratch,
	 * e.g. poison; else after its handler's failure in the batch, or, when that is null, after one of
	 * Waybill's statements failed).
	 */
	private record BatchStop(@Nullable BatchEntry entry, @Nullable Throwable handlerFailure) {
	}

	/** The database is unavailable: nothing of the open batch is recorded. */
	private static final class BatchUnavailable extends RuntimeException {

		final RuntimeException failure;

		BatchUnavailable(Throwable failure) {
			super(failure);
			this.failure = (failure instanceof RuntimeException runtime) ? runtime
					: new DataAccessResourceFailureException("The database is unavailable", failure);
		}

	}

}
