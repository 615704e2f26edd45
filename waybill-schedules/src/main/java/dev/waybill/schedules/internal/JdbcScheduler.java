package dev.waybill.schedules.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.BackgroundLoop;
import dev.waybill.kernel.PerStore;
import dev.waybill.kernel.StoreAccess;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleStatus;
import dev.waybill.schedules.ScheduledMessages;
import dev.waybill.schedules.Schedules;
import dev.waybill.schedules.StoreSchedules;

/**
 * Fires the {@link Schedule schedules} of this instance through the outbox, and implements
 * {@link Schedules} (the default store's) and {@link StoreSchedules}. Every instance that declares
 * a schedule runs the same loop against the shared schedule table of each store the schedule fires
 * in; a tick fires exactly once among them:
 * <ol>
 * <li>one transaction locks the due row with {@code FOR UPDATE SKIP LOCKED} (an instance that
 * finds it locked skips it, never waits), lets the schedule's {@link ScheduledMessages} publish
 * into that same transaction, and moves the row's {@code next_fire_at} past the fired ticks,
 * guarded by the fire time it claimed;</li>
 * <li>so the outbox scope and the new fire time commit together or not at all: a crash before
 * commit leaves the tick due for the next instance, a commit leaves it fired for all, and an
 * instance that reads the row after the commit finds it no longer due (PostgreSQL re-checks the
 * condition of a locking read against the committed row).</li>
 * </ol>
 * Only the schedules this instance declares are claimed, so an instance that does not know a
 * schedule (an older deploy) never fires it. The loop sleeps until the next fire time in any
 * store, at most {@code pollInterval}; a failing database costs no tick, that store is tried
 * again after {@code pollInterval} while the others fire. Stores registered at run time are
 * found at the next pass, and their rows created then.
 *
 * @since 0.1
 */
public final class JdbcScheduler implements Schedules, StoreSchedules, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JdbcScheduler.class);

	private static final Duration MIN_WAIT = Duration.ofMillis(5);

	private final OutboxPublisher publisher;

	private final List<Schedule> schedules;

	private final StoreScheduler defaultStore;

	private final Duration pollInterval;

	private final Object lifecycle = new Object();

	private final BackgroundLoop loop;

	private volatile PerStore<StoreScheduler> others = new PerStore<>(List::of, this::storeScheduler);

	private volatile WaybillThreads threads = WaybillThreads.platform();

	private volatile boolean running;

	/**
	 * Creates a scheduler.
	 * @param dataSource the database of the default store's outbox and schedule table
	 * @param tables the schedule table
	 * @param transactionManager the transaction manager of {@code dataSource}, which {@code publisher} writes in
	 * @param publisher the outbox publisher
	 * @param schedules this instance's schedules, unique by name
	 * @param pollInterval the longest sleep between two looks at the table
	 * @throws IllegalArgumentException when two schedules share a name
	 */
	public JdbcScheduler(DataSource dataSource, AuxiliaryTables tables, PlatformTransactionManager transactionManager,
			OutboxPublisher publisher, List<Schedule> schedules, Duration pollInterval) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		Objects.requireNonNull(tables, "tables must not be null");
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
		Map<String, Schedule> byName = new LinkedHashMap<>();
		for (Schedule schedule : schedules) {
			if (byName.putIfAbsent(schedule.name(), schedule) != null) {
				throw new IllegalArgumentException("Two schedules are named '" + schedule.name()
						+ "'; a schedule's name identifies its row, so names must be unique");
			}
		}
		if (pollInterval.compareTo(MIN_WAIT) < 0) {
			throw new IllegalArgumentException("pollInterval must be at least " + MIN_WAIT + ", was " + pollInterval);
		}
		this.schedules = List.copyOf(byName.values());
		this.pollInterval = pollInterval;
		this.defaultStore = storeScheduler(
				new StoreAccess(WaybillStore.DEFAULT_NAME, dataSource, tables.tables(), transactionManager));
		// Each store's failures are its own outage (StoreScheduler); this is for what fails outside them.
		this.loop = new BackgroundLoop("waybill-scheduler", this::pass, pollInterval, logger,
				"The scheduler could not fire every due tick (they stay due)");
	}

	/**
	 * Sets where the scheduler's thread comes from; {@link WaybillThreads#platform()} by default.
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
		this.others = new PerStore<>(stores, this::storeScheduler);
	}

	/**
	 * Creates or updates the row of every schedule of this instance in the default store: a new
	 * schedule starts with its first tick after now; a changed expression or zone restarts from
	 * now; otherwise the row, with its next fire time and pause, is kept. Called by {@link #start()};
	 * the other stores' rows are created at the loop's first pass over them.
	 */
	public void register() {
		this.defaultStore.register();
	}

	/**
	 * Fires every due schedule of this instance in the default store, one transaction per
	 * schedule, on the calling thread. A schedule whose tick could not be decided now (the database
	 * unavailable, the outbox full) is left due and out of the rest of the pass, so it delays no
	 * other schedule; the pass then throws that failure.
	 * @return how many schedules fired (or failed their tick)
	 */
	public int fireDue() {
		return this.defaultStore.fireDue();
	}

	@Override
	public List<ScheduleStatus> list() {
		return this.defaultStore.list();
	}

	@Override
	public Optional<ScheduleStatus> find(String name) {
		return this.defaultStore.find(name);
	}

	@Override
	public boolean pause(String name) {
		return this.defaultStore.pause(name);
	}

	@Override
	public boolean resume(String name) {
		return this.defaultStore.resume(name);
	}

	@Override
	public Schedules of(String store) {
		return WaybillStore.DEFAULT_NAME.equals(store) ? this : this.others.of(store);
	}

	private StoreScheduler storeScheduler(StoreAccess store) {
		return new StoreScheduler(store, this.publisher, this.schedules, this.pollInterval, this::wake);
	}

	private void wake() {
		this.loop.wake();
	}

	private Duration pass() {
		Duration wait = this.pollInterval;
		if (this.defaultStore.hasSchedules()) {
			wait = shorter(wait, this.defaultStore.pass());
		}
		for (StoreScheduler store : this.others.current().values()) {
			if (store.hasSchedules()) {
				wait = shorter(wait, store.pass());
			}
		}
		return (wait.compareTo(MIN_WAIT) < 0) ? MIN_WAIT : wait;
	}

	private static Duration shorter(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	@Override
	public void start() {
		synchronized (this.lifecycle) {
			if (this.running) {
				return;
			}
			register();
			this.running = true;
			warnOfUnknownStores();
			if (!this.schedules.isEmpty()) { // the Schedules API works without a loop
				this.loop.start(this.threads);
			}
		}
	}

	private void warnOfUnknownStores() {
		Map<String, StoreScheduler> others = this.others.current();
		for (Schedule schedule : this.schedules) {
			if (!Schedule.EVERY_STORE.equals(schedule.store()) && !WaybillStore.DEFAULT_NAME.equals(schedule.store())
					&& !others.containsKey(schedule.store())) {
				logger.warn("Schedule '" + schedule.name() + "' fires in store '" + schedule.store()
						+ "', which is not registered; it fires nowhere until a store of that name is registered");
			}
		}
	}

	/**
	 * Stops the loop; a tick firing completes (or rolls back) first.
	 */
	@Override
	public void stop() {
		synchronized (this.lifecycle) {
			this.running = false;
		}
		this.loop.stop();
	}

	/**
	 * Returns {@link WaybillPhases#RETENTION}: after the relay starts, before it stops.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.RETENTION;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
