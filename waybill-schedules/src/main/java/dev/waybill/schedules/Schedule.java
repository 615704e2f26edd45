package dev.waybill.schedules;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

import org.springframework.scheduling.support.CronExpression;

import dev.waybill.outbox.store.WaybillStore;

/**
 * A recurring message: a name, a Spring {@link CronExpression} read in a time zone, what to do
 * with missed ticks, and the {@link ScheduledMessages} that publishes each tick. Declare one as a
 * bean, or under {@code waybill.schedules.<name>.*}.
 * <pre>{@code
 * @Bean
 * Schedule nightlyReport() {
 *     return Schedule.cron("nightly-report", "0 0 2 * * *",
 *             (tick, publisher) -> publisher.publish(new ReportDue(tick.scheduledAt())))
 *         .inZone(ZoneId.of("Europe/Paris"));
 * }
 * }</pre>
 *
 * @param name the name, unique across the service: the schedule's row is keyed by it
 * @param cron when it ticks
 * @param zone the time zone the cron expression is read in
 * @param missedTicks what happens to ticks later than {@code misfireThreshold}
 * @param maxMissedTicks with {@link MissedTickPolicy#FIRE_EACH}, the most missed ticks fired in one catch-up
 * @param misfireThreshold how late a tick may fire and still count as on time
 * @param messages publishes each tick
 * @param store the store the schedule fires in: a store's name ({@value WaybillStore#DEFAULT_NAME}
 * unless set), or {@value #EVERY_STORE} for every registered store, each with its own row and ticks
 * @since 0.1
 */
public record Schedule(String name, CronExpression cron, ZoneId zone, MissedTickPolicy missedTicks, int maxMissedTicks,
		Duration misfireThreshold, ScheduledMessages messages, String store) {

	/** The {@link #store()} of a schedule that fires in every registered store. */
	public static final String EVERY_STORE = "*";

	/** The longest schedule name. */
	public static final int MAX_NAME_LENGTH = 200;

	/** The default {@link #maxMissedTicks()}. */
	public static final int DEFAULT_MAX_MISSED_TICKS = 10;

	/** The most ticks {@link MissedTickPolicy#FIRE_EACH} may fire in one catch-up (one transaction). */
	public static final int MAX_MISSED_TICKS_LIMIT = 1000;

	/** The default {@link #misfireThreshold()}. */
	public static final Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(10);

	/**
	 * Checks every component.
	 * @throws IllegalArgumentException naming the first invalid one
	 */
	public Schedule {
		Objects.requireNonNull(name, "name must not be null");
		if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException("A schedule name must be 1 to " + MAX_NAME_LENGTH
					+ " characters and not blank, was '" + name + "'");
		}
		Objects.requireNonNull(cron, "cron must not be null");
		Objects.requireNonNull(zone, "zone must not be null");
		Objects.requireNonNull(missedTicks, "missedTicks must not be null");
		if (maxMissedTicks < 1 || maxMissedTicks > MAX_MISSED_TICKS_LIMIT) {
			throw new IllegalArgumentException("maxMissedTicks must be between 1 and " + MAX_MISSED_TICKS_LIMIT
					+ ", was " + maxMissedTicks);
		}
		Objects.requireNonNull(misfireThreshold, "misfireThreshold must not be null");
		if (misfireThreshold.isNegative()) {
			throw new IllegalArgumentException("misfireThreshold must not be negative, was " + misfireThreshold);
		}
		Objects.requireNonNull(messages, "messages must not be null");
		Objects.requireNonNull(store, "store must not be null");
		if (!EVERY_STORE.equals(store)) {
			WaybillStore.checkName(store);
		}
	}

	/**
	 * Returns a schedule in UTC that fires missed ticks once, with the default threshold.
	 * @param name the name
	 * @param cron a Spring cron expression (six fields, seconds first, or a macro such as {@code @daily})
	 * @param messages publishes each tick
	 * @return the schedule
	 * @throws IllegalArgumentException when the expression is invalid
	 */
	public static Schedule cron(String name, String cron, ScheduledMessages messages) {
		return new Schedule(name, CronExpression.parse(cron), ZoneOffset.UTC, MissedTickPolicy.FIRE_ONCE,
				DEFAULT_MAX_MISSED_TICKS, DEFAULT_MISFIRE_THRESHOLD, messages, WaybillStore.DEFAULT_NAME);
	}

	/**
	 * Returns this schedule read in another time zone.
	 * @param zone the zone
	 * @return the new schedule
	 */
	public Schedule inZone(ZoneId zone) {
		return new Schedule(this.name, this.cron, zone, this.missedTicks, this.maxMissedTicks, this.misfireThreshold,
				this.messages, this.store);
	}

	/**
	 * Returns this schedule with another missed-tick policy.
	 * @param policy the policy
	 * @param maxMissedTicks the most missed ticks {@link MissedTickPolicy#FIRE_EACH} fires
	 * @return the new schedule
	 */
	public Schedule withMissedTicks(MissedTickPolicy policy, int maxMissedTicks) {
		return new Schedule(this.name, this.cron, this.zone, policy, maxMissedTicks, this.misfireThreshold,
				this.messages, this.store);
	}

	/**
	 * Returns this schedule with another misfire threshold.
	 * @param threshold how late a tick may fire and still count as on time
	 * @return the new schedule
	 */
	public Schedule withMisfireThreshold(Duration threshold) {
		return new Schedule(this.name, this.cron, this.zone, this.missedTicks, this.maxMissedTicks, threshold,
				this.messages, this.store);
	}

	/**
	 * Returns this schedule firing in one store: its row is in that store's schedule table and its
	 * ticks publish into that store's outbox.
	 * @param store the store's name
	 * @return the new schedule
	 * @throws IllegalArgumentException when the name is not a valid store name
	 */
	public Schedule inStore(String store) {
		return new Schedule(this.name, this.cron, this.zone, this.missedTicks, this.maxMissedTicks,
				this.misfireThreshold, this.messages, store);
	}

	/**
	 * Returns this schedule firing in every registered store, those registered at run time
	 * included: each store keeps its own row (next fire time, pause, counters), and each tick
	 * publishes into the store it fired in ({@link ScheduleTick#store()}), once per store however
	 * many instances run.
	 * @return the new schedule
	 */
	public Schedule inEveryStore() {
		return inStore(EVERY_STORE);
	}

	/**
	 * Returns whether this schedule fires in a store.
	 * @param storeName the store's name
	 * @return whether it is this schedule's store, or the schedule fires in every store
	 */
	public boolean firesIn(String storeName) {
		return EVERY_STORE.equals(this.store) || this.store.equals(storeName);
	}

}
