package dev.waybill.benchmarks;

/**
 * One of the targets, checked on ratios of medians from the same run.
 *
 * @param name what is compared, e.g. {@code relay / broker ceiling (scope of 1)}
 * @param goal the target, e.g. {@code >= 0.50}
 * @param measured the measured value
 * @param met whether the target is met
 */
public record Target(String name, String goal, double measured, boolean met) {

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

}
