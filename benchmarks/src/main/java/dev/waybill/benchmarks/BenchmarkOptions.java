package dev.waybill.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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
 */
public record BenchmarkOptions(List<String> benchmarks, boolean quick, int runs, Path resultsDirectory,
		boolean updateDocument, Path document) {

	/** Every benchmark, in the order they run. */
	public static final List<String> NAMES = List.of("broker", "relay", "writepath", "latency", "inbox", "retention",
			"scale", "ordering", "tracing");

	static final String USAGE = "usage: run [all|" + String.join("|", NAMES)
			+ " ...] [--quick] [--runs N] [--update-doc] [--results DIR] [--doc FILE]";

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
		for (int i = 0; i < args.length; i++) {
			String arg = args[i];
			switch (arg) {
				case "--quick" -> quick = true;
				case "--update-doc" -> update = true;
				case "--runs" -> runs = parseRuns(value(args, ++i, arg));
				case "--results" -> results = Path.of(value(args, ++i, arg));
				case "--doc" -> document = Path.of(value(args, ++i, arg));
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
		List<String> ordered = new ArrayList<>();
		for (String name : NAMES) {
			if (selected.isEmpty() || selected.contains(name)) {
				ordered.add(name);
			}
		}
		return new BenchmarkOptions(ordered, quick, runs != null ? runs : (quick ? 2 : 3), results, update, document);
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
