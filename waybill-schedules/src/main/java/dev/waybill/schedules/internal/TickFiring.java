package dev.waybill.schedules.internal;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.CurrentStore;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleTick;

/**
 * Fires one due schedule in one transaction: claims its row ({@code FOR UPDATE SKIP LOCKED}), lets
 * its messages publish into that transaction and moves the row past the fired ticks, as
 * {@link JdbcScheduler} describes. A tick whose messages fail is recorded as failed; one that
 * could not be decided now (the database unavailable, the outbox full) is thrown as
 * {@link TickNotDecided} and stays due.
 *
 * @since 0.1
 */
final class TickFiring {

	private static final Log logger = LogFactory.getLog(JdbcScheduler.class);

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final OutboxPublisher publisher;

	private final Map<String, Schedule> schedules;

	private final ScheduleSql sql;

	private final String store;

	TickFiring(String store, JdbcTemplate jdbc, TransactionTemplate transactions, OutboxPublisher publisher,
			Map<String, Schedule> schedules, ScheduleSql sql) {
		this.store = store;
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.publisher = publisher;
		this.schedules = schedules;
		this.sql = sql;
	}

	/** Fires the first due schedule among {@code names}, if any is due. */
	Fired fireOne(Set<String> names) {
		Failure failure = new Failure();
		TransactionConnection connection = new TransactionConnection();
		Boolean claimed;
		try {
			// The tick is its store's work: what it publishes goes to that store's outbox.
			claimed = CurrentStore.during(this.store, () -> this.transactions.execute((status) -> {
				connection.attach(Objects.requireNonNull(this.jdbc.getDataSource()));
				List<Claim> rows = this.jdbc.query(this.sql.claim, (rs, n) -> new Claim(rs.getString(1),
						ScheduleRows.instant(rs, 2), ScheduleRows.instant(rs, 3)), (Object) names.toArray(String[]::new));
				if (rows.isEmpty()) {
					return false;
				}
				Claim claim = rows.get(0);
				Schedule schedule = this.schedules.get(claim.name());
				TickPlan plan = TickPlan.of(schedule, this.store, claim.due(), claim.now());
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
					logger.warn("Schedule '" + schedule.name() + "' of store '" + this.store + "' skipped missed ticks (policy "
							+ schedule.missedTicks() + ", due since " + claim.due() + "); next tick " + plan.next());
				}
				ScheduleTick last = plan.ticks().isEmpty() ? null : plan.ticks().get(plan.ticks().size() - 1);
				int updated = this.jdbc.update(this.sql.fired, ScheduleRows.timestamp(plan.next()), ScheduleRows.timestamp(claim.now()),
						(last != null) ? ScheduleRows.timestamp(last.scheduledAt()) : null, plan.ticks().size(), claim.name(),
						ScheduleRows.timestamp(claim.due()));
				if (updated != 1) {
					throw new IllegalStateException("Schedule '" + claim.name() + "' changed under its lock");
				}
				return true;
			}));
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
		logger.error("Schedule '" + claim.name() + "' of store '" + this.store + "' failed to publish its tick of " + claim.due()
				+ "; the tick is recorded as failed and the schedule goes on with " + plan.next(), ex);
		String error = ex.getClass().getName() + ": " + ex.getMessage();
		this.transactions.executeWithoutResult((status) -> this.jdbc.update(this.sql.failed, ScheduleRows.timestamp(plan.next()),
				plan.ticks().size(), error, claim.name(), ScheduleRows.timestamp(claim.due())));
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

	enum Fired {

		FIRED, NONE_DUE

	}

	/** A schedule's tick left due by a failure that is not the schedule's (see {@link Failure#undecided}). */
	static final class TickNotDecided extends RuntimeException {

		final String schedule;

		final RuntimeException cause;

		TickNotDecided(String schedule, RuntimeException cause) {
			super(null, null, false, false);
			this.schedule = schedule;
			this.cause = cause;
		}

	}

}
