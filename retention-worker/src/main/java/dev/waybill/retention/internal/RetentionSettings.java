package dev.waybill.retention.internal;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What the {@link RetentionWorker} purges and how fast. Built from {@code waybill.retention.*} by
 * the auto-configuration, which checks every value first.
 *
 * @param interval the pause between runs
 * @param batchSize the most rows one batch (one transaction) deletes from each table
 * @param purgeCompleted whether completed rows are purged (the three scenarios)
 * @param completedAfter how long completed rows are kept, from {@code published_at} / {@code processed_at}
 * @param purgeIncomplete whether dead scopes and faulted, never processed inbox rows (with their
 * published consumer scopes) are purged
 * @param incompleteAfter how long incomplete rows are kept, from {@code created_at} / {@code faulted_at}
 * @param purgePendingAfter with {@code purgeIncomplete}: a pending scope created, and last due for
 * an attempt, longer ago than this is purged; {@code null} (the default) never purges a pending scope
 * @param inboxMinimumAge no inbox row younger than this is ever purged (the consumers'
 * duplicate-detection window)
 * @since 0.1
 */
public record RetentionSettings(Duration interval, int batchSize, boolean purgeCompleted, Duration completedAfter,
		boolean purgeIncomplete, Duration incompleteAfter, @Nullable Duration purgePendingAfter,
		Duration inboxMinimumAge) {

	/** The default batch size. */
	public static final int DEFAULT_BATCH_SIZE = 1000;

	/**
	 * Checks that every value is usable.
	 * @throws IllegalArgumentException naming the first unusable value
	 */
	public RetentionSettings {
		positive("interval", interval);
		if (batchSize < 1) {
			throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
		}
		positive("completedAfter", completedAfter);
		positive("incompleteAfter", incompleteAfter);
		if (purgePendingAfter != null) {
			positive("purgePendingAfter", purgePendingAfter);
		}
		Objects.requireNonNull(inboxMinimumAge, "inboxMinimumAge must not be null");
	}

	/**
	 * Returns the defaults: every 15s, batches of 1000, completed rows kept 30 days, incomplete
	 * rows kept (90 days once enabled), pending scopes never purged, inbox rows kept 30 minutes at least.
	 * @return the defaults
	 */
	public static RetentionSettings defaults() {
		return new RetentionSettings(Duration.ofSeconds(15), DEFAULT_BATCH_SIZE, true, Duration.ofDays(30), false,
				Duration.ofDays(90), null, Duration.ofMinutes(30));
	}

	/**
	 * Returns these settings with another batch size.
	 * @param batchSize the most rows per table and batch
	 * @return the new settings
	 */
	public RetentionSettings withBatchSize(int batchSize) {
		return new RetentionSettings(this.interval, batchSize, this.purgeCompleted, this.completedAfter,
				this.purgeIncomplete, this.incompleteAfter, this.purgePendingAfter, this.inboxMinimumAge);
	}

	/**
	 * Returns these settings with the incomplete purge switched on or off.
	 * @param purgeIncomplete whether incomplete rows are purged
	 * @param purgePendingAfter how long pending scopes are kept, {@code null} for ever
	 * @return the new settings
	 */
	public RetentionSettings withIncomplete(boolean purgeIncomplete, @Nullable Duration purgePendingAfter) {
		return new RetentionSettings(this.interval, this.batchSize, this.purgeCompleted, this.completedAfter,
				purgeIncomplete, this.incompleteAfter, purgePendingAfter, this.inboxMinimumAge);
	}

	private static void positive(String name, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be a positive duration, was " + value);
		}
	}

}
