package dev.waybill.benchmarks;

import org.jspecify.annotations.Nullable;

/**
 * One of the benchmarks' targets, checked on ratios of medians from the same run.
 *
 * @param name what is compared, e.g. {@code relay / broker ceiling (scope of 1)}
 * @param goal the target, e.g. {@code >= 0.50}
 * @param measured the measured value
 * @param met whether the target is met
 * @param line where the charts draw the target, or null when they do not
 */
public record Target(String name, String goal, double measured, boolean met, @Nullable Line line) {

	/**
	 * A target the charts do not draw.
	 */
	public Target(String name, String goal, double measured, boolean met) {
		this(name, goal, measured, met, null);
	}

	/**
	 * A target on a value that must be at least {@code goal}.
	 */
	public static Target atLeast(String name, double measured, double goal, String shownGoal) {
		return new Target(name, shownGoal, measured, measured >= goal);
	}

	/**
	 * A target on a value that must be at most {@code goal}.
	 */
	public static Target atMost(String name, double measured, double goal, String shownGoal) {
		return new Target(name, shownGoal, measured, measured <= goal);
	}

	/**
	 * The same target, drawn on a figure's bar at the value that figure must reach (or stay under)
	 * for the target to be met, e.g. 0.90 x the broker ceiling on the relay's bar.
	 * @param benchmark the figure's benchmark
	 * @param figure the figure
	 * @param value the threshold in the figure's own unit
	 * @return the target with its line
	 */
	public Target drawnOn(String benchmark, String figure, double value) {
		return new Target(this.name, this.goal, this.measured, this.met, new Line(benchmark, figure, value));
	}

	/**
	 * Where a target is drawn: a threshold on one figure, in that figure's unit.
	 *
	 * @param benchmark the figure's benchmark
	 * @param figure the figure
	 * @param value the threshold
	 */
	public record Line(String benchmark, String figure, double value) {

	}

}
