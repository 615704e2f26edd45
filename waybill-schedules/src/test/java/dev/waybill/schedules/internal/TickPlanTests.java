package dev.waybill.schedules.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduleTick;

class TickPlanTests {

	private static final Instant NOW = Instant.parse("2026-11-23T12:00:00.300Z");

	private static Schedule everyMinute(MissedTickPolicy policy, int limit, Duration threshold) {
		return Schedule.cron("s", "0 * * * * *", (tick, publisher) -> {
		}).withMissedTicks(policy, limit).withMisfireThreshold(threshold);
	}

	@Test
	void aTickOnTimeFiresOnceAndTheNextIsAfterNow() {
		TickPlan plan = TickPlan.of(everyMinute(MissedTickPolicy.SKIP, 10, Duration.ofSeconds(10)), "default",
				Instant.parse("2026-11-23T12:00:00Z"), NOW);
		assertThat(plan.ticks()).extracting(ScheduleTick::scheduledAt).containsExactly(Instant.parse("2026-11-23T12:00:00Z"));
		assertThat(plan.ticks().get(0).missed()).isFalse();
		assertThat(plan.next()).isEqualTo(Instant.parse("2026-11-23T12:01:00Z"));
		assertThat(plan.skipped()).isFalse();
	}

	@Test
	void fireOnceFiresOneMissedTickForAnHourOfThem() {
		TickPlan plan = TickPlan.of(everyMinute(MissedTickPolicy.FIRE_ONCE, 10, Duration.ofSeconds(10)), "default",
				Instant.parse("2026-11-23T11:00:00Z"), NOW);
		// the missed ones collapse into one; 12:00:00 is within the threshold and fires on its own
		assertThat(plan.ticks()).extracting(ScheduleTick::scheduledAt)
			.containsExactly(Instant.parse("2026-11-23T11:00:00Z"), Instant.parse("2026-11-23T12:00:00Z"));
		assertThat(plan.ticks()).extracting(ScheduleTick::missed).containsExactly(true, false);
		assertThat(plan.next()).isEqualTo(Instant.parse("2026-11-23T12:01:00Z"));
	}

	@Test
	void fireEachFiresTheOldestMissedTicksUpToTheLimit() {
		TickPlan plan = TickPlan.of(everyMinute(MissedTickPolicy.FIRE_EACH, 3, Duration.ZERO), "default",
				Instant.parse("2026-11-23T11:00:00Z"), NOW);
		assertThat(plan.ticks()).extracting(ScheduleTick::scheduledAt).containsExactly(
				Instant.parse("2026-11-23T11:00:00Z"), Instant.parse("2026-11-23T11:01:00Z"),
				Instant.parse("2026-11-23T11:02:00Z"));
		assertThat(plan.skipped()).isTrue();
		assertThat(plan.next()).isEqualTo(Instant.parse("2026-11-23T12:01:00Z"));
	}

	@Test
	void fireEachUnderTheLimitFiresEveryMissedTick() {
		TickPlan plan = TickPlan.of(everyMinute(MissedTickPolicy.FIRE_EACH, 10, Duration.ZERO), "default",
				Instant.parse("2026-11-23T11:57:00Z"), NOW);
		assertThat(plan.ticks()).hasSize(4).allMatch(ScheduleTick::missed);
		assertThat(plan.skipped()).isFalse();
	}

	@Test
	void skipFiresNothingMissedAndGoesOnAfterNow() {
		TickPlan plan = TickPlan.of(everyMinute(MissedTickPolicy.SKIP, 10, Duration.ZERO), "default",
				Instant.parse("2026-11-23T11:00:00Z"), NOW);
		assertThat(plan.ticks()).isEmpty();
		assertThat(plan.skipped()).isTrue();
		assertThat(plan.next()).isEqualTo(Instant.parse("2026-11-23T12:01:00Z"));
	}

	@Test
	void aYearOfMissedPerSecondTicksIsPlannedInBoundedWork() {
		Schedule everySecond = Schedule.cron("s", "* * * * * *", (tick, publisher) -> {
		}).withMissedTicks(MissedTickPolicy.FIRE_EACH, 5);
		long started = System.nanoTime();
		TickPlan plan = TickPlan.of(everySecond, "default", NOW.minus(Duration.ofDays(365)), NOW);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
		// five missed ones, then the ticks within the 10 s threshold
		assertThat(plan.ticks()).filteredOn(ScheduleTick::missed).hasSize(5);
		assertThat(plan.ticks()).filteredOn((tick) -> !tick.missed()).hasSize(10);
	}

	@Test
	void theZoneDecidesTheTick() {
		Schedule paris = Schedule.cron("s", "0 0 9 * * *", (tick, publisher) -> {
		}).inZone(ZoneId.of("Europe/Paris"));
		assertThat(TickPlan.after(paris, NOW)).isEqualTo(Instant.parse("2026-11-24T08:00:00Z"));
	}

	@Test
	void anExpressionWithNoMoreTicksLeavesNoNextTime() {
		Schedule never = Schedule.cron("s", "0 0 0 30 2 *", (tick, publisher) -> {
		});
		assertThat(TickPlan.after(never, NOW)).isNull();
		TickPlan plan = TickPlan.of(never, "default", NOW.minusSeconds(1), NOW);
		assertThat(plan.ticks()).hasSize(1);
		assertThat(plan.next()).isNull();
	}

}
