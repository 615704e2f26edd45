package dev.waybill.retention.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.internal.RetentionPacing;

/**
 * Configuration of the retention worker under {@code waybill.retention.*}.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillRetentionProperties.PREFIX)
public class WaybillRetentionProperties implements InitializingBean {

	/** The prefix of the retention properties. */
	public static final String PREFIX = "waybill.retention";

	/** The property that turns the worker off on an instance. */
	public static final String ENABLED_PROPERTY = PREFIX + ".enabled";

	/** The property that lists the hosts the worker runs on. */
	public static final String MACHINE_NAMES_PROPERTY = PREFIX + ".machine-names";

	/** The property that names this host. */
	public static final String MACHINE_NAME_PROPERTY = PREFIX + ".machine-name";

	/** The inbox's property (module inbox) that retention must respect; read, not depended on. */
	public static final String DUPLICATE_DETECTION_WINDOW_PROPERTY = "waybill.inbox.duplicate-detection-window";

	/** The inbox's default duplicate-detection window, assumed when the property is not set. */
	public static final Duration DEFAULT_DUPLICATE_DETECTION_WINDOW = Duration.ofMinutes(30);

	/**
	 * Whether this instance may run the retention worker (see machine-names).
	 */
	private boolean enabled = true;

	/**
	 * Pause between retention runs.
	 */
	private Duration interval = Duration.ofSeconds(15);

	/**
	 * Most rows one batch (one transaction) deletes from each table.
	 */
	private int batchSize = 1000;

	/**
	 * Whether completed rows are purged: published scopes and processed inbox rows.
	 */
	private boolean purgeCompleted = true;

	/**
	 * How long completed rows are kept, from published_at or processed_at. At least
	 * waybill.inbox.duplicate-detection-window.
	 */
	private Duration completedAfter = Duration.ofDays(30);

	/**
	 * Purge incomplete rows older than this, from created_at (dead scopes) or faulted_at (inbox
	 * rows): dead scopes, and faulted, never processed inbox rows together with their consumer
	 * scopes (redeliveries, the forward to the error queue). Unset (the default): incomplete rows
	 * are kept until an operator redrives or deletes them.
	 */
	private @Nullable Duration purgeIncompleteAfter;

	/**
	 * With purge-incomplete-after, purge pending scopes created and last due longer ago than this.
	 * Unset (the default): a pending scope, which may still be delivered, is never purged.
	 */
	private @Nullable Duration purgePendingAfter;

	/**
	 * Move purged published messages to the archive table (for replay) instead of deleting them, and
	 * keep them this long from when they were archived; older ones are deleted. Unset (the default):
	 * purged messages are deleted, and what an earlier archive holds is deleted 90 days after it was
	 * archived.
	 */
	private @Nullable Duration archiveAfter;

	/**
	 * How fast the worker purges: a budget of rows per second that backs off when batches slow down.
	 */
	private final Pacing pacing = new Pacing();

	/**
	 * Hosts the worker runs on, compared case-insensitively with this host's name; empty for every host.
	 */
	private List<String> machineNames = new ArrayList<>();

	/**
	 * This host's name as machine-names lists it. Defaults to the HOSTNAME or COMPUTERNAME
	 * environment variable, else the local host name.
	 */
	private @Nullable String machineName;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public boolean isPurgeCompleted() {
		return this.purgeCompleted;
	}

	public void setPurgeCompleted(boolean purgeCompleted) {
		this.purgeCompleted = purgeCompleted;
	}

	public Duration getCompletedAfter() {
		return this.completedAfter;
	}

	public void setCompletedAfter(Duration completedAfter) {
		this.completedAfter = completedAfter;
	}

	public @Nullable Duration getPurgeIncompleteAfter() {
		return this.purgeIncompleteAfter;
	}

	public void setPurgeIncompleteAfter(@Nullable Duration purgeIncompleteAfter) {
		this.purgeIncompleteAfter = purgeIncompleteAfter;
	}

	public @Nullable Duration getPurgePendingAfter() {
		return this.purgePendingAfter;
	}

	public void setPurgePendingAfter(@Nullable Duration purgePendingAfter) {
		this.purgePendingAfter = purgePendingAfter;
	}

	public @Nullable Duration getArchiveAfter() {
		return this.archiveAfter;
	}

	public void setArchiveAfter(@Nullable Duration archiveAfter) {
		this.archiveAfter = archiveAfter;
	}

	/**
	 * Returns the archive settings, checking archive-after.
	 * @return the settings: {@link RetentionArchive#OFF} when archive-after is unset
	 * @throws InvalidConfigurationPropertyValueException when archive-after is not a positive duration
	 * @since 0.1
	 */
	public RetentionArchive toArchive() {
		if (this.archiveAfter == null) {
			return RetentionArchive.OFF;
		}
		positive("archive-after", this.archiveAfter, "90d");
		return new RetentionArchive(true, this.archiveAfter);
	}

	/**
	 * Checks the rules that need no other property group as soon as the properties are bound:
	 * archive-after and the pacing's rates.
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	@Override
	public void afterPropertiesSet() {
		toArchive();
		toPacing();
	}

	public Pacing getPacing() {
		return this.pacing;
	}

	/**
	 * Returns the pacing, checking its rates.
	 * @return the pacing
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 * @since 0.1
	 */
	RetentionPacing toPacing() {
		if (this.pacing.minRate < 1) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + ".pacing.min-rate", this.pacing.minRate,
					"The rate must be at least 1 row per second. Set " + PREFIX + ".pacing.min-rate to a rate such as "
							+ RetentionPacing.DEFAULT_MIN_RATE + ".");
		}
		if (this.pacing.maxRate < this.pacing.minRate) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + ".pacing.max-rate", this.pacing.maxRate,
					"It is below " + PREFIX + ".pacing.min-rate (" + this.pacing.minRate + "). Set " + PREFIX
							+ ".pacing.max-rate to at least that, or set " + PREFIX
							+ ".pacing.enabled to false to purge flat out.");
		}
		return new RetentionPacing(this.pacing.enabled, this.pacing.maxRate, this.pacing.minRate);
	}

	public List<String> getMachineNames() {
		return this.machineNames;
	}

	public void setMachineNames(List<String> machineNames) {
		this.machineNames = machineNames;
	}

	public @Nullable String getMachineName() {
		return this.machineName;
	}

	public void setMachineName(@Nullable String machineName) {
		this.machineName = machineName;
	}

	/**
	 * Returns the worker's settings, checking every value against its rule.
	 * @param duplicateDetectionWindow the consumers' duplicate-detection window; completed-after
	 * must not be shorter
	 * @return the settings
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	RetentionSettings toSettings(Duration duplicateDetectionWindow) {
		positive("interval", this.interval, "15s");
		if (this.batchSize < 1) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + ".batch-size", this.batchSize,
					"The batch size must be at least 1. Set " + PREFIX + ".batch-size to a count such as 1000.");
		}
		positive("completed-after", this.completedAfter, "30d");
		if (this.purgeIncompleteAfter != null) {
			positive("purge-incomplete-after", this.purgeIncompleteAfter, "90d");
		}
		if (this.purgePendingAfter != null) {
			positive("purge-pending-after", this.purgePendingAfter, "180d");
		}
		if (this.completedAfter.compareTo(duplicateDetectionWindow) < 0) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + ".completed-after", this.completedAfter,
					"It is shorter than " + DUPLICATE_DETECTION_WINDOW_PROPERTY + " (" + duplicateDetectionWindow
							+ "): processed inbox rows must be kept that long so that redelivered duplicates are "
							+ "still recognised. Set " + PREFIX + ".completed-after to at least " + duplicateDetectionWindow
							+ ", or shorten " + DUPLICATE_DETECTION_WINDOW_PROPERTY + ".");
		}
		RetentionSettings defaults = RetentionSettings.defaults();
		boolean purgeIncomplete = this.purgeIncompleteAfter != null;
		return new RetentionSettings(this.interval, this.batchSize, this.purgeCompleted, this.completedAfter,
				purgeIncomplete, purgeIncomplete ? this.purgeIncompleteAfter : defaults.incompleteAfter(),
				this.purgePendingAfter, duplicateDetectionWindow);
	}

	private static void positive(String name, @Nullable Duration value, String example) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + "." + name, value,
					"The value must be a positive duration. Set " + PREFIX + "." + name + " to a duration such as "
							+ example + ".");
		}
	}

	/**
	 * Pacing of the purge under {@code waybill.retention.pacing.*}.
	 *
	 * @since 0.1
	 */
	public static class Pacing {

		/**
		 * Whether batches are paced to the rate budget; false runs them back to back (flat out).
		 */
		private boolean enabled = true;

		/**
		 * Most rows (outbox scopes plus inbox rows) purged per second, the budget while batches
		 * are fast.
		 */
		private int maxRate = RetentionPacing.DEFAULT_MAX_RATE;

		/**
		 * Least rows per second the budget backs off to while batches are slow.
		 */
		private int minRate = RetentionPacing.DEFAULT_MIN_RATE;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxRate() {
			return this.maxRate;
		}

		public void setMaxRate(int maxRate) {
			this.maxRate = maxRate;
		}

		public int getMinRate() {
			return this.minRate;
		}

		public void setMinRate(int minRate) {
			this.minRate = minRate;
		}

	}

}
