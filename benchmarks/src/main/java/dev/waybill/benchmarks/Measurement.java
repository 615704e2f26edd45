package dev.waybill.benchmarks;

import java.util.List;
import java.util.Objects;

/**
 * One figure of the table: the value of each run, summarised as median, minimum and maximum.
 *
 * @param benchmark the benchmark's name, e.g. {@code relay}
 * @param figure what was measured, e.g. {@code scope of 1}
 * @param unit the unit, e.g. {@code msg/s}
 * @param runs the value each run measured, at least one
 * @param note what the figure depends on, e.g. the number of messages; may be empty
 */
public record Measurement(String benchmark, String figure, String unit, List<Double> runs, String note) {

	public Measurement {
		Objects.requireNonNull(benchmark, "benchmark must not be null");
		Objects.requireNonNull(figure, "figure must not be null");
		Objects.requireNonNull(unit, "unit must not be null");
		Objects.requireNonNull(note, "note must not be null");
		runs = List.copyOf(runs);
		if (runs.isEmpty()) {
			throw new IllegalArgumentException("Measurement '" + benchmark + " / " + figure + "' has no runs");
		}
	}

	public double median() {
		return Stats.median(this.runs);
	}

	public double min() {
		return Stats.min(this.runs);
	}

	public double max() {
		return Stats.max(this.runs);
	}

}
