package dev.waybill.retention.internal;

/**
 * How fast the {@link RetentionWorker} purges: a budget of rows per second (outbox scopes plus
 * inbox rows; an outbox scope's messages go with it and are not counted) that the worker paces its
 * batches to. The budget starts at {@code maxRate}, is halved (down to {@code minRate}) after a batch
 * that took clearly longer per row than the best of the recent batches, and grows back towards
 * {@code maxRate} while batches are fast. Built from {@code waybill.retention.pacing.*} by the
 * auto-configuration.
 *
 * @param enabled whether batches are paced; {@code false} runs them back to back (flat out)
 * @param maxRate the most rows per second, the budget while the database is quiet
 * @param minRate the least rows per second the budget backs off to
 * @since 0.1
 */
public record RetentionPacing(boolean enabled, int maxRate, int minRate) {

	/** The default budget ceiling, rows per second. */
	public static final int DEFAULT_MAX_RATE = 21_000;

	/** The default budget floor, rows per second. */
	public static final int DEFAULT_MIN_RATE = 3_000;

	/** No pacing: batches run back to back. */
	public static final RetentionPacing OFF = new RetentionPacing(false, DEFAULT_MAX_RATE, DEFAULT_MIN_RATE);

	/**
	 * Checks that the rates are usable.
	 * @throws IllegalArgumentException naming the first unusable value
	 */
	public RetentionPacing {
		if (minRate < 1) {
			throw new IllegalArgumentException("minRate must be at least 1, was " + minRate);
		}
		if (maxRate < minRate) {
			throw new IllegalArgumentException("maxRate must be at least minRate (" + minRate + "), was " + maxRate);
		}
	}

	/**
	 * Returns the defaults: paced, at most {@value #DEFAULT_MAX_RATE} rows per second, backing off
	 * to {@value #DEFAULT_MIN_RATE}.
	 * @return the defaults
	 */
	public static RetentionPacing defaults() {
		return new RetentionPacing(true, DEFAULT_MAX_RATE, DEFAULT_MIN_RATE);
	}

}
