package dev.waybill.schedules.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
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
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.BackgroundLoop;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleStatus;
import dev.waybill.schedules.ScheduleTick;
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
 * @since 0.2
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
						timestamp(TickPlan.after(schedule, now)));
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
			Fired outcome;
			try {
				outcome = fireOne(names);
			}
			catch (TickNotDecided ex) {
				names.remove(ex.schedule);
				undecided = (undecided != null) ? undecided : ex.cause;
				continue;
			}
			if (outcome == Fired.NONE_DUE) {
				break;
			}
			fired++;
		}
		if (undecided != null) {
			throw undecided;
		}
		return fired;
	}

	private Fired fireOne(Set<String> names) {
		Failure failure = new Failure();
		TransactionConnection connection = new TransactionConnection();
		Boolean claimed;
		try {
			claimed = this.transactions.execute((status) -> {
				connection.attach(Objects.requireNonNull(this.jdbc.getDataSource()));
				List<Claim> rows = this.jdbc.query(this.sql.claim, (rs, n) -> new Claim(rs.getString(1),
						instant(rs, 2), instant(rs, 3)), (Object) names.toArray(String[]::new));
				if (rows.isEmpty()) {
					return false;
				}
				Claim claim = rows.get(0);
				Schedule schedule = this.schedules.get(claim.name());
				TickPlan plan = TickPlan.of(schedule, claim.due(), claim.now());
				failure.claim = claim;
				failure.plan = plan;
				for (ScheduleTick tick : plan.ticks()) {
					try {
						schedule.messages().publish(tick, new TickPublisher(this.publisher, tick));
					}
					catch (VirtualMachineError ex) {
						throw ex;
					}
					catch (RuntimeException | Error ex) {
						failure.cause = ex;
						failure.undecided = ex instanceof OutboxFullException
								|| ex instanceof TransientDataAccessException
								|| DatabaseFailures.unavailable(ex, connection.check());
						throw ex;
					}
				}
				if (plan.skipped()) {
					logger.warn("Schedule '" + schedule.name() + "' skipped missed ticks (policy "
							+ schedule.missedTicks() + ", due since " + claim.due() + "); next tick " + plan.next());
				}
				ScheduleTick last = plan.ticks().isEmpty() ? null : plan.ticks().get(plan.ticks().size() - 1);
				int updated = this.jdbc.update(this.sql.fired, timestamp(plan.next()), timestamp(claim.now()),
						(last != null) ? timestamp(last.scheduledAt()) : null, plan.ticks().size(), claim.name(),
						timestamp(claim.due()));
				if (updated != 1) {
					throw new IllegalStateException("Schedule '" + claim.name() + "' changed under its lock");
				}
				return true;
			});
		}
		catch (RuntimeException | Error ex) {
			if (ex instanceof VirtualMachineError || failure.cause != ex || failure.claim == null
					|| failure.plan == null) {
				throw ex;
			}
			if (failure.undecided) {
				throw new TickNotDecided(failure.claim.name(),
						(ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex));
			}
			recordFailure(failure.claim, failure.plan, ex);
			return Fired.FIRED;
		}
		return Boolean.TRUE.equals(claimed) ? Fired.FIRED : Fired.NONE_DUE;
	}

	/**
	 * A tick whose messages failed is not retried: it would fail the same way, forever. It is
	 * counted and its error kept on the row, and the schedule goes on with the next tick. (Not a
	 * tick that failed because the database was unavailable or the outbox full: that stays due.)
	 */
	private void recordFailure(Claim claim, TickPlan plan, Throwable ex) {
		logger.error("Schedule '" + claim.name() + "' failed to publish its tick of " + claim.due()
				+ "; the tick is recorded as failed and the schedule goes on with " + plan.next(), ex);
		String error = ex.getClass().getName() + ": " + ex.getMessage();
		this.transactions.executeWithoutResult((status) -> this.jdbc.update(this.sql.failed, timestamp(plan.next()),
				plan.ticks().size(), error, claim.name(), timestamp(claim.due())));
	}

	@Override
	public List<ScheduleStatus> list() {
		return this.jdbc.query(this.sql.list, JdbcScheduler::status);
	}

	@Override
	public Optional<ScheduleStatus> find(String name) {
		return this.jdbc.query(this.sql.find, JdbcScheduler::status, name).stream().findFirst();
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
			return this.jdbc.update(this.sql.resume, timestamp(TickPlan.after(row, databaseNow())), name) == 1;
		});
		wake();
		return Boolean.TRUE.equals(resumed);
	}

	private Instant databaseNow() {
		return Objects.requireNonNull(this.jdbc.queryForObject(this.sql.now, (rs, n) -> instant(rs, 1)));
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

	private static ScheduleStatus status(ResultSet rs, int row) throws SQLException {
		return new ScheduleStatus(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4), instant(rs, 5),
				nullableInstant(rs, 6), nullableInstant(rs, 7), rs.getLong(8), rs.getLong(9), rs.getString(10));
	}

	private static Instant instant(ResultSet rs, int column) throws SQLException {
		return Objects.requireNonNull(nullableInstant(rs, column));
	}

	private static @Nullable Instant nullableInstant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	private static @Nullable Timestamp timestamp(@Nullable Instant instant) {
		return (instant != null) ? Timestamp.from(instant) : null;
	}

	private record Claim(String name, Instant due, Instant now) {
	}

	private static final class Failure {

		@Nullable Claim claim;

		@Nullable TickPlan plan;

		@Nullable Throwable cause;

		/** The tick could not be decided now (database unavailable, outbox full): it stays due. */
		boolean undecided;

	}

	private enum Fired {

		FIRED, NONE_DUE

	}

	/** A schedule's tick left due by a failure that is not the schedule's (see {@link Failure#undecided}). */
	private static final class TickNotDecided extends RuntimeException {

		final String schedule;

		final RuntimeException cause;

		TickNotDecided(String schedule, RuntimeException cause) {
			super(null, null, false, false);
			this.schedule = schedule;
			this.cause = cause;
		}

	}

}
