package dev.waybill.schedules.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;

/**
 * Recurring messages declared in configuration ({@code waybill.schedules.<name>.*}) and the
 * scheduler's settings ({@code waybill.scheduler.*}).
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillSchedulesProperties.PREFIX)
public class WaybillSchedulesProperties {

	/** The common prefix. */
	public static final String PREFIX = "waybill";

	/** The prefix of the declared schedules. */
	public static final String SCHEDULES_PREFIX = PREFIX + ".schedules";

	/**
	 * Schedules by name; each tick publishes through the outbox, once across all instances.
	 */
	private Map<String, ScheduleProperties> schedules = new LinkedHashMap<>();

	private final Scheduler scheduler = new Scheduler();

	public Map<String, ScheduleProperties> getSchedules() {
		return this.schedules;
	}

	public void setSchedules(Map<String, ScheduleProperties> schedules) {
		this.schedules = schedules;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	/**
	 * The scheduler that fires the schedules.
	 */
	public static class Scheduler {

		/**
		 * Whether this instance fires schedules. The Schedules API (pause, resume) works either way.
		 */
		private boolean enabled = true;

		/**
		 * Longest sleep between two looks at the schedule table; the scheduler otherwise sleeps until the next tick.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

	}

	/**
	 * One schedule.
	 */
	public static class ScheduleProperties {

		/**
		 * Spring cron expression: six fields, seconds first ("0 0 2 * * *"), or a macro such as "@hourly".
		 */
		private @Nullable String cron;

		/**
		 * Time zone the cron expression is read in, e.g. "Europe/Paris".
		 */
		private String zone = "UTC";

		/**
		 * Store the schedule fires in: a store's name, or "*" for every registered store (each with its own ticks).
		 */
		private String store = WaybillStore.DEFAULT_NAME;

		/**
		 * Fully qualified class of the message each tick publishes, built from payload. Either this or bean.
		 */
		private @Nullable String messageType;

		/**
		 * Properties of the message each tick publishes, read into message-type by the message serializer.
		 */
		private Map<String, Object> payload = new LinkedHashMap<>();

		/**
		 * Exchange to send the message to; by default it is published to the exchange of its message type.
		 */
		private @Nullable String destination;

		/**
		 * Routing key of the message.
		 */
		private String routingKey = "";

		/**
		 * Name of a ScheduledMessages bean that publishes each tick. Either this or message-type.
		 */
		private @Nullable String bean;

		/**
		 * What happens to ticks missed by more than misfire-threshold: fire-once, fire-each or skip.
		 */
		private MissedTickPolicy missedTicks = MissedTickPolicy.FIRE_ONCE;

		/**
		 * With missed-ticks fire-each, the most missed ticks fired in one catch-up; older ones are skipped.
		 */
		private int maxMissedTicks = Schedule.DEFAULT_MAX_MISSED_TICKS;

		/**
		 * How late a tick may fire and still count as on time.
		 */
		private Duration misfireThreshold = Schedule.DEFAULT_MISFIRE_THRESHOLD;

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public String getStore() {
			return this.store;
		}

		public void setStore(String store) {
			this.store = store;
		}

		public String getZone() {
			return this.zone;
		}

		public void setZone(String zone) {
			this.zone = zone;
		}

		public @Nullable String getMessageType() {
			return this.messageType;
		}

		public void setMessageType(@Nullable String messageType) {
			this.messageType = messageType;
		}

		public Map<String, Object> getPayload() {
			return this.payload;
		}

		public void setPayload(Map<String, Object> payload) {
			this.payload = payload;
		}

		public @Nullable String getDestination() {
			return this.destination;
		}

		public void setDestination(@Nullable String destination) {
			this.destination = destination;
		}

		public String getRoutingKey() {
			return this.routingKey;
		}

		public void setRoutingKey(String routingKey) {
			this.routingKey = routingKey;
		}

		public @Nullable String getBean() {
			return this.bean;
		}

		public void setBean(@Nullable String bean) {
			this.bean = bean;
		}

		public MissedTickPolicy getMissedTicks() {
			return this.missedTicks;
		}

		public void setMissedTicks(MissedTickPolicy missedTicks) {
			this.missedTicks = missedTicks;
		}

		public int getMaxMissedTicks() {
			return this.maxMissedTicks;
		}

		public void setMaxMissedTicks(int maxMissedTicks) {
			this.maxMissedTicks = maxMissedTicks;
		}

		public Duration getMisfireThreshold() {
			return this.misfireThreshold;
		}

		public void setMisfireThreshold(Duration misfireThreshold) {
			this.misfireThreshold = misfireThreshold;
		}

	}

}
