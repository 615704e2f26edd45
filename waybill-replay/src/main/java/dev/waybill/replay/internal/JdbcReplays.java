package dev.waybill.replay.internal;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.kernel.BackgroundLoop;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.PerStore;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.StoreAccess;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.replay.ReplayJob;
import dev.waybill.replay.ReplayRequest;
import dev.waybill.replay.Replays;
import dev.waybill.replay.StoreReplays;

/**
 * The {@link Replays} on Waybill's tables (the default store's, and each other store's through
 * {@link StoreReplays}), and the worker that writes the batches of running jobs in every store.
 * Each batch is one transaction in its store: lock a due running job with
 * {@code FOR UPDATE SKIP LOCKED} (an instance that finds it locked moves on, never waits), write
 * its next messages as one pending outbox scope, advance its cursor and schedule its next batch by
 * its pace. The cursor and the scope commit together, so after a crash the job continues at the
 * first message not yet written, on whichever instance gets to it first; the pace holds across
 * instances because the next batch's time is on the row. A store that fails is tried again after
 * the poll interval while the others' jobs run.
 *
 * @since 0.1
 */
public final class JdbcReplays implements Replays, StoreReplays, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JdbcReplays.class);

	private final RelayWakeUp wakeUp;

	private final Duration pollInterval;

	private final BackgroundLoop loop;

	private final ReplayJobs defaultStore;

	private volatile PerStore<ReplayJobs> others = new PerStore<>(List::of, this::jobs);

	private volatile WaybillThreads threads = WaybillThreads.platform();

	private volatile boolean worker = true;

	/**
	 * Creates the replays.
	 * @param dataSource the database of the default store's outbox
	 * @param tables the outbox tables (the archive and job tables are named after them)
	 * @param transactionManager the transaction manager of {@code dataSource}
	 * @param wakeUp told after each batch, so the relays publish it at once
	 * @param pollInterval the longest sleep of the worker between two looks at a job table
	 */
	public JdbcReplays(DataSource dataSource, OutboxTables tables, PlatformTransactionManager transactionManager,
			RelayWakeUp wakeUp, Duration pollInterval) {
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		if (pollInterval.toMillis() < 5) {
			throw new IllegalArgumentException("pollInterval must be at least 5ms, was " + pollInterval);
		}
		this.pollInterval = pollInterval;
		// Each store's pass tells its own failures (ReplayJobs); the loop's message is for an Error only.
		this.loop = new BackgroundLoop("waybill-replay", this::pass, pollInterval, logger,
				"Replay worker failed a batch");
		this.defaultStore = jobs(new StoreAccess(WaybillStore.DEFAULT_NAME, dataSource, tables, transactionManager));
	}

	/**
	 * Sets whether {@link #start()} starts the worker on this instance; {@code true} by default.
	 * The API works either way.
	 * @param worker whether this instance writes batches
	 */
	public void setWorker(boolean worker) {
		this.worker = worker;
	}

	/**
	 * Sets where the worker's thread comes from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
	}

	/**
	 * Sets the stores other than the default one, asked at every pass so that stores registered
	 * or deregistered at run time are followed.
	 * @param stores the registered stores other than the default, now
	 */
	public void setStores(Supplier<List<StoreAccess>> stores) {
		this.others = new PerStore<>(stores, this::jobs);
	}

	@Override
	public ReplayJob start(ReplayRequest request) {
		return this.defaultStore.start(request);
	}

	@Override
	public Optional<ReplayJob> find(UUID id) {
		return this.defaultStore.find(id);
	}

	@Override
	public List<ReplayJob> list() {
		return this.defaultStore.list();
	}

	@Override
	public boolean pause(UUID id) {
		return this.defaultStore.pause(id);
	}

	@Override
	public boolean resume(UUID id) {
		return this.defaultStore.resume(id);
	}

	@Override
	public boolean cancel(UUID id) {
		return this.defaultStore.cancel(id);
	}

	@Override
	public Replays of(String store) {
		return WaybillStore.DEFAULT_NAME.equals(store) ? this : this.others.of(store);
	}

	/**
	 * Writes one batch of one due running job of the default store, on the calling thread.
	 * @return how many messages the batch wrote, or {@code -1} when no job was due
	 */
	public long runBatch() {
		return this.defaultStore.runBatch();
	}

	/**
	 * Writes batches while any job of the default store is due, on the calling thread.
	 * @return how many messages were written
	 */
	public long runDue() {
		return this.defaultStore.runDue();
	}

	private ReplayJobs jobs(StoreAccess store) {
		return new ReplayJobs(store, this.wakeUp, this.pollInterval, this::wake, this::shouldContinue);
	}

	private boolean shouldContinue() {
		return this.loop.shouldContinue();
	}

	private Duration pass() {
		Duration wait = this.defaultStore.pass();
		for (ReplayJobs store : this.others.current().values()) {
			Duration next = store.pass();
			wait = (next.compareTo(wait) < 0) ? next : wait;
		}
		return wait;
	}

	private void wake() {
		this.loop.wake();
	}

	@Override
	public void start() {
		if (this.worker) {
			this.loop.start(this.threads);
		}
	}

	/**
	 * Stops the worker after its current batch.
	 */
	@Override
	public void stop() {
		this.loop.stop();
	}

	@Override
	public boolean isRunning() {
		return this.loop.isRunning();
	}

	/**
	 * Returns {@link WaybillPhases#RETENTION}: after the relay starts, before it stops.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.RETENTION;
	}

}
