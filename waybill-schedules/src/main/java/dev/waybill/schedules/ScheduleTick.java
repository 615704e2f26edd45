package dev.waybill.schedules;

import java.time.Instant;
import java.util.Objects;

/**
 * One tick of a schedule, as handed to its {@link ScheduledMessages}.
 *
 * @param schedule the schedule's name
 * @param scheduledAt the tick's time by the cron expression; the identity of the tick
 * @param firedAt when the tick fired, by the database's clock
 * @param missed whether the tick was missed (later than the misfire threshold) and fires under
 * the schedule's {@link MissedTickPolicy}; with {@link MissedTickPolicy#FIRE_ONCE} it stands for
 * every tick missed since {@code scheduledAt}
 * @param store the store the tick fired in, whose outbox what it publishes is written to
 * @since 0.1
 */
public record ScheduleTick(String schedule, Instant scheduledAt, Instant firedAt, boolean missed, String store) {

	/** The header naming the schedule on every message a tick publishes. */
	public static final String SCHEDULE_HEADER = "waybill-schedule";

	/** The header carrying the tick's {@link #scheduledAt()} (ISO-8601) on every message a tick publishes. */
	public static final String TICK_HEADER = "waybill-schedule-tick";

	/**
	 * Checks the components.
	 */
	public ScheduleTick {
		Objects.requireNonNull(schedule, "schedule must not be null");
		Objects.requireNonNull(scheduledAt, "scheduledAt must not be null");
		Objects.requireNonNull(firedAt, "firedAt must not be null");
		Objects.requireNonNull(store, "store must not be null");
	}

}
