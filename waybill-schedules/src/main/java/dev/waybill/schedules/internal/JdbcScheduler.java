package dev.waybill.schedules.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.BackgroundLoop;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleStatus;
import dev.waybill.schedules.ScheduledMessages;
import dev.waybill.schedules.Schedules;

/**
 * Fires the {@link Schedule schedules} of this instance through the outbox, and implements
 * {@link Schedules}. Every instance that declares a schedule runs the same loop against the
 * shared schedule table; a tick fires exactly once among them:
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
 * schedule (an older deploy) never fires it. The loop sleeps until the next fire time, at most
 * {@code pollInterval}; a failing database costs no tick, the loop retries after {@code pollInterval}.
 *
 * @since 0.1
 */
public final class JdbcScheduler implements Schedules, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JdbcScheduler.class);

	private static final Duration MIN_WAIT = Duration.ofMillis(5);

	private static final Duration LOCKED_WAIT = Duration.ofMillis(50);

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final OutboxPublisher publisher;

	private final Map<String, Schedule> schedules = new LinkedHashMap<>();

	private final ScheduleSql sql;

	private final Duration pollInterval;

	private final Object lifecycle = new Object();

	private final BackgroundLoop loop;

	private final TickFiring firing;

	private volatile WaybillThreads threads = WaybillThreads.platform();

	private volatile boolean running;

	/**
	 * Creates a scheduler.
	 * @param dataSource the database of the outbox and the schedule table
	 * @param tables the schedule table
	 * @param transactionManager the transaction manager of {@code dataSource}, which {@code publisher} writes in
	 * @param publisher the outbox publisher
	 * @param schedules this instance's schedules, unique by name
	 * @param pollInterval the longest sleep between two looks at the table
	 * @throws IllegalArgumentException when two schedules share a name
	 */
	public JdbcScheduler(DataSource dataSource, AuxiliaryTables tables, PlatformTransactionManager transactionManager,
			OutboxPublisher publisher, List<Schedule> schedules, Duration pollInterval) {
		this.jdbc = new JdbcTemplate(Objects.requireNonNull(dataSource, "dataSource must not be null"));
		this.transactions = new TransactionTemplate(transactionManager);
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
		this.sql = new ScheduleSql(Objects.requireNonNull(tables, "tables must not be null"));
		for (Schedule schedule : schedules) {
			if (this.schedules.putIfAbsent(schedule.name(), schedule) != null) {
				throw new IllegalArgumentException("Two schedules are named '" + schedule.name()
						+ "'; a schedule's name identifies its row, so names must be unique");
			}
		}
		if (pollInterval.compareTo(MIN_WAIT) < 0) {
			throw new IllegalArgumentException("pollInterval must be at least " + MIN_WAIT + ", was " + pollInterval);
		}
		this.pollInterval = pollInterval;
		this.firing = new TickFiring(this.jdbc, this.transactions, this.publisher, this.schedules, this.sql);
		// The database is unreachable or failing, or the outbox full: no tick is lost, it stays due.
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
	 * Creates or updates the row of every schedule of this instance: a new schedule starts with
	 * its first tick after now; a changed expression or zone restarts from now; otherwise the row,
	 * with its next fire time and pause, is kept. Called by {@link #start()}.
	 */
	public void register() {
		// In a transaction, not on a bare connection: a pool that hands out connections with
		// auto-commit off (spring.datasource.hikari.auto-commit=false) would roll the rows back.
		this.transactions.executeWithoutResult((status) -> {
			Instant now = databaseNow();
			for (Schedule schedule : this.schedules.values()) {
				this.jdbc.update(this.sql.register, schedule.name(), schedule.cron().toString(), schedule.zone().getId(),
						ScheduleRows.timestamp(TickPlan.after(schedule, now)));
			}
		});
	}

	/**
	 * Fires every due schedule of this instance, one transaction per schedule, on the calling thread.
	 * A schedule whose tick could not be decided now (the database unavailable, the outbox full) is
	 * left due and out of the rest of the pass, so it delays no other schedule; the pass then throws
	 * that failure, and the loop tries again after its poll interval.
	 * @return how many schedules fired (or failed their tick)
	 */
	public int fireDue() {
		int fired = 0;
		Set<String> names = new LinkedHashSet<>(this.schedules.keySet());
		RuntimeException undecided = null;
		while (!names.isEmpty()) {
			TickFiring.Fired outcome;
			try {
				outcome = this.firing.fireOne(names);
			}
			catch (TickFiring.TickNotDecided ex) {
				names.remove(ex.schedule);
				undecided = (undecided != null) ? undecided : ex.cause;
				continue;
			}
			if (outcome == TickFiring.Fired.NONE_DUE) {
				break;
			}
			fired++;
		}
		if (undecided != null) {
			throw undecided;
		}
		return fired;
	}

	@Override
	public List<ScheduleStatus> list() {
		return this.jdbc.query(this.sql.list, ScheduleRows::status);
	}

	@Override
	public Optional<ScheduleStatus> find(String name) {
		return this.jdbc.query(this.sql.find, ScheduleRows::status, name).stream().findFirst();
	}

	@Override
	public boolean pause(String name) {
		boolean found = Boolean.TRUE.equals(this.transactions.execute((status) -> this.jdbc.update(this.sql.pause, name) == 1));
		wake();
		return found;
	}

	@Override
	public boolean resume(String name) {
		Boolean resumed = this.transactions.execute((status) -> {
			List<Object[]> rows = this.jdbc.query(this.sql.find + " FOR UPDATE",
					(rs, n) -> new Object[] { rs.getString(2), rs.getString(3) }, name);
			if (rows.isEmpty()) {
				return false;
			}
			Schedule row = new Schedule(name, CronExpression.parse((String) rows.get(0)[0]),
					ZoneId.of((String) rows.get(0)[1]), MissedTickPolicy.SKIP, 1, Duration.ZERO, (tick, publisher) -> {
					});
			return this.jdbc.update(this.sql.resume, ScheduleRows.timestamp(TickPlan.after(row, databaseNow())), name) == 1;
		});
		wake();
		return Boolean.TRUE.equals(resumed);
	}

	private Instant databaseNow() {
		return Objects.requireNonNull(this.jdbc.queryForObject(this.sql.now, (rs, n) -> ScheduleRows.instant(rs, 1)));
	}

	private Duration untilNextDue() {
		Double millis = this.jdbc.queryForObject(this.sql.nextDue, Double.class,
				(Object) this.schedules.keySet().toArray(String[]::new));
		if (millis == null) {
			return this.pollInterval;
		}
		if (millis <= 0) {
			// Due but not claimed: another instance holds it (inside its tick), or it was just paused.
			return (LOCKED_WAIT.compareTo(this.pollInterval) < 0) ? LOCKED_WAIT : this.pollInterval;
		}
		Duration wait = Duration.ofMillis((long) Math.ceil(millis));
		return (wait.compareTo(this.pollInterval) > 0) ? this.pollInterval
				: (wait.compareTo(MIN_WAIT) < 0) ? MIN_WAIT : wait;
	}

	private Duration pass() {
		fireDue();
		return untilNextDue();
	}

	private void wake() {
		this.loop.wake();
	}

	@Override
	public void start() {
		synchronized (this.lifecycle) {
			if (this.running) {
				return;
			}
			register();
			this.running = true;
			if (!this.schedules.isEmpty()) { // the Schedules API works without a loop
				this.loop.start(this.threads);
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
