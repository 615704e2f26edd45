package dev.waybill.outbox.autoconfigure.health;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code waybill} health contributor, under {@code waybill.health}.
 *
 * @since 0.1
 */
@ConfigurationProperties("waybill.health")
public class WaybillHealthProperties {

	private final Backlog backlog = new Backlog();

	/**
	 * Returns the settings of the {@code backlog} component.
	 * @return the backlog settings
	 */
	public Backlog getBacklog() {
		return this.backlog;
	}

	/**
	 * Settings of the {@code backlog} component.
	 */
	public static class Backlog {

		/**
		 * How long an outbox scope may have been due for delivery (its not-before time and retry
		 * backoff passed) before the backlog component reports OUT_OF_SERVICE.
		 */
		private Duration maxAge = Duration.ofMinutes(5);

		/**
		 * How long a health check waits for the database (a connection, the backlog's query) before
		 * the backlog component reports DOWN, so that /actuator/health answers within it when the
		 * database is away or a lock is held on the outbox's tables.
		 */
		private Duration timeout = Duration.ofSeconds(3);

		/**
		 * Returns how long a scope may have been due before the backlog is stale.
		 * @return the maximum age
		 */
		public Duration getMaxAge() {
			return this.maxAge;
		}

		/**
		 * Sets how long a scope may have been due before the backlog is stale.
		 * @param maxAge the maximum age, positive
		 */
		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

		/**
		 * Returns how long a check waits for the database before the backlog component reports DOWN.
		 * @return the timeout
		 */
		public Duration getTimeout() {
			return this.timeout;
		}

		/**
		 * Sets how long a check waits for the database before the backlog component reports DOWN.
		 * @param timeout the timeout, positive
		 */
		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
