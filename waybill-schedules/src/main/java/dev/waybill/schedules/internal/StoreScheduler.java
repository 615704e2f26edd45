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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.NextLook;
import dev.waybill.kernel.OutageLog;
import dev.waybill.kernel.StoreAccess;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleStatus;
import dev.waybill.schedules.Schedules;

/**
 * The schedules of one store: their rows in that store's schedule table, fired in that store's
 * transactions, as {@link JdbcScheduler} describes. It looks at its table when its next tick is
 * due, at the latest a poll interval after its last look ({@link NextLook}).
 *
 * @since 0.1
 */
final class StoreScheduler implements Schedules {

	private static final Log logger = LogFactory.getLog(JdbcScheduler.class);

	private static final Duration MIN_WAIT = Duration.ofMillis(5);

	private static final Duration LOCKED_WAIT = Duration.ofMillis(50);

	private final StoreAccess store;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final Map<String, Schedule> schedules = new LinkedHashMap<>();

	private final ScheduleSql sql;

	private final Duration pollInterval;

	private final TickFiring firing;

	private final OutageLog outage;

	private final Runnable wake;

	private volatile boolean registered;

	private final NextLook nextLook;

	StoreScheduler(StoreAccess store, OutboxPublisher publisher, List<Schedule> schedules, Duration pollInterval,
			Runnable wake) {
		this.store = store;
		this.jdbc = new JdbcTemplate(store.dataSource());
		this.transactions = new TransactionTemplate(store.transactionManager());
		this.sql = new ScheduleSql(new AuxiliaryTables(store.tables()));
		for (Schedule schedule : schedules) {
			if (schedule.firesIn(store.name())) {
				this.schedules.put(schedule.name(), schedule);
			}
		}
		this.pollInterval = pollInterval;
		this.nextLook = new NextLook(pollInterval);
		this.wake = wake;
		this.firing = new TickFiring(store.name(), this.jdbc, this.transactions, publisher, this.schedules, this.sql);
		String schedulesOf = WaybillStore.DEFAULT_NAME.equals(store.name()) ? "Schedules"
				: "Schedules of store '" + store.name() + "'";
		this.outage = new OutageLog(logger, schedulesOf + " could not fire (their ticks stay due)",
				schedulesOf + " still cannot fire", schedulesOf + " fire again after %s of failures");
	}

	boolean hasSchedules() {
		return !this.schedules.isEmpty();
	}

	/**
	 * Creates or updates the row of every schedule of this store: a new schedule starts with its
	 * first tick after now; a changed expression or zone restarts from now; otherwise the row,
	 * with its next fire time and pause, is kept.
	 */
	void register() {
		// In a transaction, not on a bare connection: a pool that hands out connections with
		// auto-commit off (spring.datasource.hikari.auto-commit=false) would roll the rows back.
		this.transactions.executeWithoutResult((status) -> {
			Instant now = databaseNow();
			for (Schedule schedule : this.schedules.values()) {
				this.jdbc.update(this.sql.register, schedule.name(), schedule.cron().toString(), schedule.zone().getId(),
						ScheduleRows.timestamp(TickPlan.after(schedule, now)));
			}
		});
		this.registered = true;
	}

	/**
	 * Fires what is due in this store when its next tick has come or the poll interval has
	 * passed since its table was last looked at; a failure is logged as this store's outage and
	 * retried after the poll interval.
	 * @return how long until this store needs another pass
	 */
	Duration pass() {
		Duration left = this.nextLook.left();
		if (left != null) {
			return left;
		}
		try {
			if (!this.registered) {
				register();
			}
			fireDue();
			Duration wait = untilNextDue();
			this.nextLook.looked(wait);
			this.outage.succeeded();
			return wait;
		}
		catch (RuntimeException ex) {
			this.outage.failed(ex, this.pollInterval);
			this.nextLook.looked(this.pollInterval);
			return this.pollInterval;
		}
	}

	/**
	 * Fires every due schedule of this store, one transaction per schedule, on the calling thread.
	 * A schedule whose tick could not be decided now (the database unavailable, the outbox full) is
	 * left due and out of the rest of the pass, so it delays no other schedule; the pass then throws
	 * that failure.
	 * @return how many schedules fired (or failed their tick)
	 */
	int fireDue() {
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
		changed();
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
					}, this.store.name());
			return this.jdbc.update(this.sql.resume, ScheduleRows.timestamp(TickPlan.after(row, databaseNow())), name) == 1;
		});
		changed();
		return Boolean.TRUE.equals(resumed);
	}

	private void changed() {
		this.nextLook.changed();
		this.wake.run();
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

}
