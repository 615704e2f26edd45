package dev.waybill.retention.internal;

import java.time.Duration;

/**
 * Paces one retention run: after each batch, says how long to pause before the next so that the
 * run keeps to its budget of rows per second, and adapts the budget. The signal is the batch's own
 * duration per row against the best of the recent batches: the purge shares the CPU, the WAL and
 * its flushes, and the buffers with the writers, so when they are busy its batches slow down too. A
 * batch slower than {@link #SLOW} times the recent best halves the budget (not below
 * {@link RetentionPacing#minRate()}); a batch within it raises the budget by {@link #SPEED_UP} (not
 * above {@link RetentionPacing#maxRate()}). Time is given, not read, so the pacer is deterministic.
 * Not thread-safe: one per run.
 */
final class RetentionPacer {

	/** A batch this many times slower per row than the recent best is taken as contention. */
	static final double SLOW = 2.0;

	/** What a slow batch multiplies the budget by. */
	static final double BACK_OFF = 0.5;

	/** What a fast batch multiplies the budget by. */
	static final double SPEED_UP = 1.1;

	/** How many batches "recent" is. */
	static final int WINDOW = 50;

	private final RetentionPacing pacing;

	private final double[] recentNanosPerRow = new double[WINDOW];

	private int recent;

	private double rate;

	RetentionPacer(RetentionPacing pacing) {
		this.pacing = pacing;
		this.rate = pacing.maxRate();
	}

	/**
	 * Takes a committed batch into account and returns the pause before the next one: what is left
	 * of the time the budget gives the batch's rows once the batch itself has taken its part.
	 * @param rows the rows the batch purged (scopes and inbox rows)
	 * @param took how long the batch took, commit included
	 * @return the pause, zero when not paced or when the batch used up its time
	 */
	Duration pauseAfter(long rows, Duration took) {
		if (!this.pacing.enabled() || rows <= 0) {
			return Duration.ZERO;
		}
		double nanosPerRow = (double) took.toNanos() / rows;
		adapt(nanosPerRow);
		remember(nanosPerRow);
		long budgetNanos = (long) (rows * 1e9 / this.rate);
		return Duration.ofNanos(Math.max(0, budgetNanos - took.toNanos()));
	}

	/**
	 * Returns the current budget.
	 * @return rows per second
	 */
	double rate() {
		return this.rate;
	}

	private void adapt(double nanosPerRow) {
		if (this.recent == 0) {
			return;
		}
		double best = Double.MAX_VALUE;
		for (int i = 0; i < Math.min(this.recent, WINDOW); i++) {
			best = Math.min(best, this.recentNanosPerRow[i]);
		}
		if (nanosPerRow > best * SLOW) {
			this.rate = Math.max(this.pacing.minRate(), this.rate * BACK_OFF);
		}
		else {
			this.rate = Math.min(this.pacing.maxRate(), this.rate * SPEED_UP);
		}
	}

	private void remember(double nanosPerRow) {
		this.recentNanosPerRow[this.recent % WINDOW] = nanosPerRow;
		this.recent++;
	}

}
