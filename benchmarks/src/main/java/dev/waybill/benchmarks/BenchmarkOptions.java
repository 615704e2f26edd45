package dev.waybill.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What one invocation runs: the benchmarks by name (in their canonical order), full or quick
 * sizes, the number of runs per figure, where results go and whether BENCHMARKS.md is updated.
 *
 * @param benchmarks the selected names, in {@link #NAMES} order
 * @param quick small sizes, for checking the harness in a minute or two
 * @param runs runs per figure, at least 1
 * @param resultsDirectory where the table files are written
 * @param updateDocument whether to put the table into {@link #document}
 * @param document BENCHMARKS.md
 * @param chartsOnly redraw the charts from a results CSV instead of running benchmarks
 * @param chartsCsv the results CSV to redraw from, or null for {@code latest.csv} in the results
 * directory
 */
public record BenchmarkOptions(List<String> benchmarks, boolean quick, int runs, Path resultsDirectory,
		boolean updateDocument, Path document, boolean chartsOnly, @Nullable Path chartsCsv) {

	/** Every benchmark, in the order they run. */
	public static final List<String> NAMES = List.of("broker", "relay", "writepath", "latency", "inbox", "retention",
			"scale", "ordering", "tracing", "wal", "pooled", "standby", "stores");

	static final String USAGE = "usage: run [all|" + String.join("|", NAMES)
			+ " ...] [--quick] [--runs N] [--update-doc] [--results DIR] [--doc FILE]"
			+ "\n       run --charts-only [RESULTS.csv] [--update-doc] [--results DIR] [--doc FILE]";

	/**
	 * Parses the command line.
	 * @param args the arguments
	 * @return the options
	 * @throws IllegalArgumentException naming the argument that is wrong and what is allowed
	 */
	public static BenchmarkOptions parse(String... args) {
		Set<String> selected = new LinkedHashSet<>();
		boolean quick = false;
		Integer runs = null;
		boolean update = false;
		Path results = Path.of("benchmarks", "results");
		Path document = Path.of("BENCHMARKS.md");
		boolean chartsOnly = false;
		Path chartsCsv = null;
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			switch (arg) {
				case "--quick" -> quick = true;
				case "--update-doc" -> update = true;
				case "--runs" -> runs = parseRuns(value(args, ++i, arg));
				case "--results" -> results = Path.of(value(args, ++i, arg));
				case "--doc" -> document = Path.of(value(args, ++i, arg));
				case "--charts-only" -> {
					chartsOnly = true;
					if (i + 1 < args.length && args[i + 1].endsWith(".csv")) {
						chartsCsv = Path.of(args[++i]);
					}
				}
				case "all" -> selected.addAll(NAMES);
				default -> {
					String name = arg.toLowerCase(Locale.ROOT);
					if (arg.startsWith("-") || !NAMES.contains(name)) {
						throw new IllegalArgumentException("Unknown argument '" + arg + "'. " + USAGE);
					}
					selected.add(name);
				}
			}
		}
		if (chartsOnly && !selected.isEmpty()) {
			throw new IllegalArgumentException(
					"--charts-only redraws the charts of a results file and runs no benchmark; drop "
							+ String.join(", ", selected) + ". " + USAGE);
		}
		List<String> ordered = new ArrayList<>();
		for (String name : NAMES) {
			if (selected.isEmpty() || selected.contains(name)) {
				ordered.add(name);
			}
		}
		return new BenchmarkOptions(ordered, quick, runs != null ? runs : (quick ? 2 : 3), results, update, document,
				chartsOnly, chartsCsv);
	}

	/**
	 * The results CSV {@code --charts-only} redraws.
	 * @return the named file, else {@code latest.csv} in the results directory
	 */
	public Path chartsSource() {
		return this.chartsCsv != null ? this.chartsCsv : this.resultsDirectory.resolve("latest.csv");
	}

	/**
	 * Tells whether a benchmark is selected.
	 * @param name one of {@link #NAMES}
	 * @return whether it runs
	 */
	public boolean selects(String name) {
		return this.benchmarks.contains(name);
	}

	private static String value(String[] args, int index, String option) {
		if (index >= args.length || args[index].startsWith("--")) {
			throw new IllegalArgumentException(option + " needs a value. " + USAGE);
		}
		return args[index];
	}

	private static int parseRuns(String value) {
		try {
			int runs = Integer.parseInt(value);
			if (runs >= 1) {
				return runs;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("--runs must be a whole number of at least 1, was '" + value + "'");
	}

}
