package dev.waybill.schedules.internal;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleTick;

/**
 * Which ticks fire when a due schedule is claimed, and its next fire time. Ticks at or before
 * {@code now - misfireThreshold} are missed and follow the policy; later ones (up to {@code now})
 * fire each. Every loop is bounded: by the policy's limit for missed ticks, by the number of
 * ticks within the threshold for the rest, so a schedule down for a year costs no more than one
 * down for a minute.
 *
 * @param ticks the ticks to fire, oldest first
 * @param next the schedule's next fire time, {@literal null} when the expression has no more ticks
 * @param skipped whether missed ticks were skipped
 */
record TickPlan(List<ScheduleTick> ticks, @Nullable Instant next, boolean skipped) {

	/** A guard against a threshold so long that its window holds too many ticks for one transaction. */
	static final int MAX_TICKS = Schedule.MAX_MISSED_TICKS_LIMIT * 2;

	static TickPlan of(Schedule schedule, String store, Instant due, Instant now) {
		List<ScheduleTick> ticks = new ArrayList<>();
		Instant boundary = now.minus(schedule.misfireThreshold());
		Instant tick = due;
		boolean skipped = false;
		if (!tick.isAfter(boundary)) {
			switch (schedule.missedTicks()) {
				case SKIP -> {
					tick = after(schedule, boundary);
					skipped = true;
				}
				case FIRE_ONCE -> {
					ticks.add(new ScheduleTick(schedule.name(), tick, now, true, store));
					tick = after(schedule, boundary);
				}
				case FIRE_EACH -> {
					while (tick != null && !tick.isAfter(boundary) && ticks.size() < schedule.maxMissedTicks()) {
						ticks.add(new ScheduleTick(schedule.name(), tick, now, true, store));
						tick = after(schedule, tick);
					}
					if (tick != null && !tick.isAfter(boundary)) {
						tick = after(schedule, boundary);
						skipped = true;
					}
				}
			}
		}
		while (tick != null && !tick.isAfter(now) && ticks.size() < MAX_TICKS) {
			ticks.add(new ScheduleTick(schedule.name(), tick, now, false, store));
			tick = after(schedule, tick);
		}
		if (tick != null && !tick.isAfter(now)) {
			tick = after(schedule, now);
			skipped = true;
		}
		return new TickPlan(ticks, tick, skipped);
	}

	/**
	 * Returns the schedule's first tick strictly after {@code time}, or {@literal null} when the
	 * expression has none (a date that never comes again).
	 */
	static @Nullable Instant after(Schedule schedule, Instant time) {
		ZonedDateTime next = schedule.cron().next(time.atZone(schedule.zone()));
		return (next != null) ? next.toInstant() : null;
	}

}
