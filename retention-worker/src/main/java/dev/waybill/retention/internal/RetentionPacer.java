package dev.waybill.retention.internal;

import java.time.Duration;
import java.util.Arrays;

/**
 * Paces one retention run: after each batch, says how long to pause before the next so that the
 * run keeps to its budget of rows per second, and adapts the budget. The signal is the batches' own
 * duration per row, the median of the last three batches, against the recent best: the lower
 * quartile of those medians over the last {@link #WINDOW} batches (the minimum would make every
 * ordinary fluctuation of a shared machine look like contention). The purge shares the CPU, the WAL
 * and its flushes, the locks and the buffers with the writers, so when they get busier its batches
 * slow down too. While that median is more than
 * {@link #SLOW} times the recent best, each batch halves the budget (not below
 * {@link RetentionPacing#minRate()}); otherwise each batch raises it by {@link #SPEED_UP} (not above
 * {@link RetentionPacing#maxRate()}). The median ignores one slow batch (a checkpoint, a lock wait,
 * a busy neighbour): two in a row back off. The window makes a lasting change the new normal once
 * it fills three quarters of it, so the budget comes back once the slowdown has lasted that long (a
 * steady load is governed by {@code maxRate}, a rise in load by the back-off). Time is given, not
 * read, so the pacer is deterministic. Not thread-safe: one per run.
 */
final class RetentionPacer {

	/** Batches this many times slower per row than the recent best are taken as contention. */
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

	private final double[] lastThree = new double[3];

	private int batches;

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
		double current = medianOfLastThree(nanosPerRow);
		adapt(current);
		remember(current);
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
		double[] recent = Arrays.copyOf(this.recentNanosPerRow, Math.min(this.recent, WINDOW));
		Arrays.sort(recent);
		double best = recent[(recent.length - 1) / 4];
		if (nanosPerRow > best * SLOW) {
			this.rate = Math.max(this.pacing.minRate(), this.rate * BACK_OFF);
		}
		else {
			this.rate = Math.min(this.pacing.maxRate(), this.rate * SPEED_UP);
		}
	}

	/** With fewer than three batches, the smaller: one slow batch never counts alone. */
	private double medianOfLastThree(double nanosPerRow) {
		this.lastThree[this.batches % 3] = nanosPerRow;
		this.batches++;
		if (this.batches == 1) {
			return nanosPerRow;
		}
		if (this.batches == 2) {
			return Math.min(this.lastThree[0], this.lastThree[1]);
		}
		double a = this.lastThree[0];
		double b = this.lastThree[1];
		double c = this.lastThree[2];
		return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
	}

	private void remember(double nanosPerRow) {
		this.recentNanosPerRow[this.recent % WINDOW] = nanosPerRow;
		this.recent++;
	}

}
