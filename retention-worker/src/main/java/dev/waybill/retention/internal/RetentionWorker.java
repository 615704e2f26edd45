package dev.waybill.retention.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

import dev.waybill.kernel.AdvisoryTransactionLock;
import dev.waybill.kernel.OutageLog;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.RetentionRunner;

/**
 * Purges outbox scopes (their messages go with them, deleted by the scope table's trigger) and inbox
 * rows once they are done with, in batches: each batch is one transaction that deletes at most
 * {@link RetentionSettings#batchSize()} rows from each table, selected with
 * {@code FOR UPDATE SKIP LOCKED} so that rows a relay or consumer holds are skipped, never waited
 * on. A run repeats batches while one comes back full, paced by a {@link RetentionPacer} to a
 * budget of rows per second ({@link #setPacing}) so that writers hardly feel it; as a
 * {@link SmartLifecycle} the worker runs every {@link RetentionSettings#interval()} on one daemon thread.
 * <p>
 * Eligible, older than {@code completedAfter}: (1) a published scope without an inbox row, (2) a
 * published scope whose inbox row is processed, (3) a processed inbox row without an outbox
 * scope, and any expired or cancelled scope (by the time it expired or was cancelled). A consumer scope (one with an {@code inbound_message_id}) is tied to the inbox row of the
 * same message and consumer: it stays while that row is unprocessed, and the inbox row stays while
 * any scope of it remains, so the row goes in the same batch as, or after, its scopes. With
 * {@code purgeIncomplete}, older than {@code incompleteAfter}: dead scopes; faulted (never
 * processed) inbox rows together with their published consumer scopes (the redeliveries and the
 * forward to the error queue); abandoned inbox rows (failed, neither processed nor faulted, with no
 * redelivery pending, by {@code received_at}) together with theirs; and pending scopes only when
 * {@code purgePendingAfter} is set. No inbox row younger than {@code inboxMinimumAge} is ever purged.
 * <p>
 * At most one worker purges a set of tables at a time: a run first takes a PostgreSQL advisory
 * lock ({@link AdvisoryTransactionLock}: held by an open transaction of one pooled connection, so
 * that a transaction-mode pooler does not defeat it), runs its batches on a second connection and
 * releases the lock at its end. A run that does not get the lock returns
 * {@link RetentionResult#SKIPPED} at once. If the host dies, its connection goes and PostgreSQL
 * releases the lock, so another host takes over at its next run.
 *
 * @since 0.1
 */
public final class RetentionWorker implements RetentionRunner, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RetentionWorker.class);

	/** {@code query_canceled}: here most often the role's or database's {@code statement_timeout}. */
	private static final String STATEMENT_TIMEOUT = "57014";

	private final DataSource dataSource;

	private final RetentionSettings settings;

	private final RetentionListener listener;

	private final RetentionSql sql;

	private final RetentionBatch batch;

	private final Object lifecycleMonitor = new Object();

	private volatile boolean disabled;

	private volatile boolean stopping;

	private @Nullable ScheduledExecutorService scheduler;

	private volatile WaybillThreads threads = WaybillThreads.platform();

	private volatile RetentionArchive archive = RetentionArchive.OFF;

	private volatile RetentionPacing pacing = RetentionPacing.defaults();

	/**
	 * The rows a batch deletes at most: {@link RetentionSettings#batchSize()}, halved for each batch
	 * the database cancelled for its {@code statement_timeout} (runs are serialized by the lock).
	 */
	private volatile int batchSize;

	/** The scheduled runs' failures (the scheduler's thread only). */
	private volatile OutageLog outages = outageLog("Retention");

	private volatile @Nullable StoreRetention otherStores;

	/** How the worker's lines name what it purges: "Retention", or "Retention of store 'x'". */
	private volatile String subject = "Retention";

	/**
	 * Creates a worker.
	 * @param dataSource the database that holds the tables
	 * @param tables the tables
	 * @param settings what to purge and how fast
	 * @param listener hears every batch and run, {@link RetentionListener#NONE} for none
	 */
	public RetentionWorker(DataSource dataSource, OutboxTables tables, RetentionSettings settings,
			RetentionListener listener) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.batchSize = settings.batchSize();
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.sql = new RetentionSql(Objects.requireNonNull(tables, "tables must not be null"));
		this.batch = new RetentionBatch(this.sql, settings);
	}

	private static OutageLog outageLog(String subject) {
		return new OutageLog(logger, subject + " run failed", subject + " runs still fail",
				subject + " runs again after %s of failed runs");
	}

	/**
	 * Purges the other stores too, after each scheduled run of this one, on its thread.
	 * @param stores the other stores' retention, or {@literal null} for none
	 * @since 0.1
	 */
	public void setOtherStores(@Nullable StoreRetention stores) {
		this.otherStores = stores;
	}

	/**
	 * Makes the worker's log lines name the store it purges, one other than the default store.
	 * @param store the store's name
	 * @since 0.1
	 */
	public void setStoreName(String store) {
		this.subject = "Retention of store '" + store + "'";
		this.outages = outageLog(this.subject);
	}

	/**
	 * Returns the settings this worker runs with.
	 * @return the settings
	 */
	public RetentionSettings settings() {
		return this.settings;
	}

	@Override
	public RetentionResult runOnce() {
		try (AdvisoryTransactionLock lock = AdvisoryTransactionLock.tryAcquire(this.dataSource, this.sql.lockKey)) {
			if (lock == null) {
				return RetentionResult.SKIPPED;
			}
			RetentionResult run = RetentionResult.NOTHING;
			try (Connection connection = this.dataSource.getConnection()) {
				connection.setAutoCommit(false);
				try {
					RetentionPacer pacer = new RetentionPacer(this.pacing);
					boolean full = true;
					// A lock whose holding connection died is free for another host, which may be
					// purging already: this run ends rather than purge beside it.
					while (full && !this.stopping && lock.stillHeld()) {
						int limit = this.batchSize;
						long started = System.nanoTime();
						RetentionResult batch;
						try {
							batch = this.batch.run(connection, limit, this.archive);
						}
						catch (SQLException ex) {
							if (limit > 1 && STATEMENT_TIMEOUT.equals(ex.getSQLState())) {
								shrink(limit, ex);
								continue;
							}
							throw ex;
						}
						Duration took = Duration.ofNanos(System.nanoTime() - started);
						run = run.plus(batch);
						this.listener.batchCommitted(batch, took);
						// A full batch of archived messages means more may be due as well.
						full = batch.outboxStates() >= limit || batch.inboxStates() >= limit
								|| batch.archivedMessages() >= limit;
						if (full && !pause(pacer.pauseAfter(batch.outboxStates() + batch.inboxStates(), took))) {
							break;
						}
					}
				}
				finally {
					connection.setAutoCommit(true);
				}
			}
			this.listener.runCompleted(run, Instant.now());
			return run;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Retention run failed: " + ex.getMessage(), ex);
		}
	}

	/** Sleeps between batches; an interrupt (the worker stopping) ends the run, keeping the flag. */
	private static boolean pause(Duration pause) {
		if (pause.isZero()) {
			return true;
		}
		try {
			TimeUnit.NANOSECONDS.sleep(pause.toNanos());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Halves the batch for this and every later run: a batch the database cancels for running past
	 * its {@code statement_timeout} (set by a DBA on the role or the database) would be cancelled at
	 * every run, and nothing would ever be purged.
	 */
	private void shrink(int limit, SQLException cause) {
		int smaller = Math.max(1, limit / 2);
		this.batchSize = smaller;
		logger.warn("Retention batch of " + limit + " rows ran past the database's statement_timeout ("
				+ cause.getMessage() + ", SQLState " + STATEMENT_TIMEOUT + "); purging in batches of " + smaller
				+ " from now on. Lower waybill.retention.batch-size (" + this.settings.batchSize()
				+ "), or raise statement_timeout for Waybill's role");
	}

	/** One scheduled run: purges, and logs what it purged or why it failed. */
	void runScheduled() {
		try {
			RetentionResult run = runOnce();
			this.outages.succeeded();
			if (run.total() > 0) {
				logger.info(this.subject + " purged " + run.outboxStates() + " outbox scopes, " + run.outboxMessages()
						+ " outbox messages and " + run.inboxStates() + " inbox rows"
						+ ((run.archivedMessages() > 0) ? ", and " + run.archivedMessages() + " archived messages" : "")
						+ " in " + run.batches() + " batches");
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(run.skipped() ? this.subject + " skipped: another worker holds the retention lock"
						: this.subject + " found nothing to purge");
			}
		}
		catch (RuntimeException ex) {
			this.outages.failed(ex, this.settings.interval());
		}
		StoreRetention others = this.otherStores;
		if (others != null && !this.stopping) {
			try {
				others.runOnce();
			}
			catch (RuntimeException ex) { // each store's own failures are its worker's: this is the registry's
				logger.warn("Retention of the other stores failed: " + ex, ex);
			}
		}
	}

	/**
	 * Returns whether this worker archives the published messages it purges.
	 * @return the archive settings
	 * @since 0.1
	 */
	public RetentionArchive archive() {
		return this.archive;
	}

	/**
	 * Sets whether purged published messages are archived, and how long the archive keeps them;
	 * {@link RetentionArchive#OFF} by default.
	 * @param archive the archive settings
	 * @since 0.1
	 */
	public void setArchive(RetentionArchive archive) {
		this.archive = Objects.requireNonNull(archive, "archive must not be null");
	}

	/**
	 * Returns how this worker paces its batches.
	 * @return the pacing
	 * @since 0.1
	 */
	public RetentionPacing pacing() {
		return this.pacing;
	}

	/**
	 * Sets how this worker paces its batches; {@link RetentionPacing#defaults()} by default,
	 * {@link RetentionPacing#OFF} runs them back to back. Taken at the start of each run.
	 * @param pacing the pacing
	 * @since 0.1
	 */
	public void setPacing(RetentionPacing pacing) {
		this.pacing = Objects.requireNonNull(pacing, "pacing must not be null");
	}

	/**
	 * Sets where the retention scheduler's threads come from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
	}

	/**
	 * Keeps this worker from starting, for a host that does not run it although the worker was
	 * registered there: after Spring's ahead-of-time processing, which registers the worker
	 * whatever the build host, since the host that runs it is known at start-up only.
	 */
	public void disable() {
		this.disabled = true;
	}

	/**
	 * Returns whether the worker starts with its context: not once {@link #disable() disabled}.
	 */
	@Override
	public boolean isAutoStartup() {
		return !this.disabled;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.disabled || this.scheduler != null) {
				return;
			}
			this.stopping = false;
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1,
					this.threads.named("waybill-retention"));
			long interval = this.settings.interval().toMillis();
			scheduler.scheduleWithFixedDelay(this::runScheduled, interval, interval, TimeUnit.MILLISECONDS);
			this.scheduler = scheduler;
		}
	}

	/**
	 * Returns {@link WaybillPhases#RETENTION}.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.RETENTION;
	}

	/**
	 * Stops the schedule; a run in progress ends after its current batch.
	 */
	@Override
	public void stop() {
		ScheduledExecutorService scheduler;
		synchronized (this.lifecycleMonitor) {
			scheduler = this.scheduler;
			this.scheduler = null;
		}
		if (scheduler == null) {
			return;
		}
		this.stopping = true;
		scheduler.shutdownNow();
		try {
			if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
				logger.warn("Retention worker did not stop within 30s; its batch is still running");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.stopping = false;
		}
	}

	@Override
	public boolean isRunning() {
		synchronized (this.lifecycleMonitor) {
			return this.scheduler != null;
		}
	}

}
