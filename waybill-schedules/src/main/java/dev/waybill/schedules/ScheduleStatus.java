package dev.waybill.schedules;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A schedule as its row in the database stands, shared by every instance.
 *
 * @param name the schedule's name
 * @param cron the cron expression
 * @param zone the time zone id
 * @param paused whether it is paused
 * @param nextFireAt the next tick that will fire
 * @param lastFiredAt when it last fired, or {@literal null}
 * @param lastTickAt the scheduled time of the last tick fired, or {@literal null}
 * @param firedTicks how many ticks fired (a {@link MissedTickPolicy#FIRE_ONCE} catch-up counts once)
 * @param failedTicks how many ticks failed in their {@link ScheduledMessages}
 * @param lastError the last failure, or {@literal null}
 * @since 0.1
 */
public record ScheduleStatus(String name, String cron, String zone, boolean paused, Instant nextFireAt,
		@Nullable Instant lastFiredAt, @Nullable Instant lastTickAt, long firedTicks, long failedTicks,
		@Nullable String lastError) {

}
