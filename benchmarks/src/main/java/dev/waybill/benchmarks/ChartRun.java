package dev.waybill.benchmarks;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a chart says about the run it shows: when it started and the command, when known.
 *
 * @param started the run's start, or null when the results file does not tell it
 * @param command the command line of the run, or null
 */
record ChartRun(@Nullable LocalDateTime started, @Nullable String command) {

	private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

	/**
	 * The title with the run's date, e.g. {@code Throughput, run of 2026-11-23 15:00}.
	 */
	String title(String what) {
		return this.started == null ? what : what + ", run of " + SHOWN.format(this.started);
	}

	/**
	 * The line under the title: the command and how each bar summarises its runs.
	 */
	String subtitle(List<Measurement> measurements) {
		int runs = measurements.stream().mapToInt((m) -> m.runs().size()).max().orElse(1);
		String summary = runs == 1 ? "one run per figure" : "bar: median of " + runs + " runs, whisker: min to max";
		return (this.command == null ? "" : this.command + "   \u00b7   ") + summary;
	}

}
