package dev.waybill.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a run's charts (throughput against the ceilings, latency against the floor) as SVG files:
 * beside the results ({@code <timestamp>-throughput.svg}, {@code <timestamp>-latency.svg}) and, for
 * BENCHMARKS.md, at a stable path next to the document ({@value #DOCUMENT_DIRECTORY}/) that the
 * document links above its table. {@code ./benchmarks/run --charts-only [csv]} redraws them from a
 * results CSV without running anything.
 */
final class Charts {

	/** Where the document's charts go, relative to the document's directory. */
	static final String DOCUMENT_DIRECTORY = "docs/benchmarks";

	private Charts() {
	}

	/**
	 * One drawn chart.
	 *
	 * @param name the file name's suffix, e.g. {@code throughput}
	 * @param alt what the chart shows, the image's alternative text in the document
	 * @param svg the SVG
	 */
	record Chart(String name, String alt, String svg) {

	}

	/**
	 * Draws every chart the run has figures for.
	 * @param measurements the run's figures
	 * @param targets the run's targets, drawn where they have a line
	 * @param run the run's date and command
	 * @return the charts; none when the run measured none of their figures
	 */
	static List<Chart> draw(List<Measurement> measurements, List<Target> targets, ChartRun run) {
		List<Chart> charts = new ArrayList<>();
		ThroughputChart.draw(measurements, targets, run)
			.ifPresent((svg) -> charts.add(new Chart("throughput", "Throughput against the ceilings", svg)));
		LatencyChart.draw(measurements, targets, run)
			.ifPresent((svg) -> charts.add(new Chart("latency", "Latency percentiles against the floor", svg)));
		return charts;
	}

	/**
	 * Writes the charts as {@code <prefix>-<name>.svg}.
	 * @param directory where, created when missing
	 * @param prefix the results files' name, e.g. {@code 20261123-150010}
	 * @param charts the charts
	 * @return the files written
	 */
	static List<Path> write(Path directory, String prefix, List<Chart> charts) throws IOException {
		List<Path> written = new ArrayList<>();
		Files.createDirectories(directory);
		for (Chart chart : charts) {
			Path file = directory.resolve(prefix + "-" + chart.name() + ".svg");
			Files.writeString(file, chart.svg(), StandardCharsets.UTF_8);
			written.add(file);
		}
		return written;
	}

	/**
	 * Keeps the run the document's charts are drawn from beside them ({@value #DOCUMENT_DIRECTORY}/latest.csv
	 * and latest.md), the only results kept in the repository.
	 * @param document the document, e.g. BENCHMARKS.md
	 * @param resultsDirectory where the run wrote its latest.csv and latest.md
	 * @return the files written
	 */
	static List<Path> keepForDocument(Path document, Path resultsDirectory) throws IOException {
		Path directory = document.toAbsolutePath().getParent().resolve(DOCUMENT_DIRECTORY);
		Files.createDirectories(directory);
		List<Path> written = new ArrayList<>();
		for (String name : List.of("latest.csv", "latest.md")) {
			Path file = directory.resolve(name);
			Files.copy(resultsDirectory.resolve(name), file, StandardCopyOption.REPLACE_EXISTING);
			written.add(file);
		}
		return written;
	}

	/**
	 * Writes the charts where the document links them: {@value #DOCUMENT_DIRECTORY}/{@code <name>.svg}
	 * beside the document.
	 * @param document the document, e.g. BENCHMARKS.md
	 * @param charts the charts
	 * @return the files written
	 */
	static List<Path> writeForDocument(Path document, List<Chart> charts) throws IOException {
		Path parent = document.toAbsolutePath().getParent();
		Path directory = parent.resolve(DOCUMENT_DIRECTORY);
		List<Path> written = new ArrayList<>();
		Files.createDirectories(directory);
		for (Chart chart : charts) {
			Path file = directory.resolve(chart.name() + ".svg");
			Files.writeString(file, chart.svg(), StandardCharsets.UTF_8);
			written.add(file);
		}
		return written;
	}

	/**
	 * Puts the charts' image links before a table, replacing links a previous run put there.
	 * @param content what goes between the document's results markers
	 * @param charts the charts drawn
	 * @return the links, then the content
	 */
	static String withLinks(String content, List<Chart> charts) {
		List<String> lines = new ArrayList<>(content.lines().toList());
		while (!lines.isEmpty() && (lines.get(0).isBlank() || isChartLink(lines.get(0)))) {
			lines.remove(0);
		}
		StringBuilder out = new StringBuilder();
		for (Chart chart : charts) {
			out.append("![").append(chart.alt()).append("](").append(DOCUMENT_DIRECTORY).append('/').append(chart.name())
				.append(".svg)\n\n");
		}
		return out.append(String.join("\n", lines)).append('\n').toString();
	}

	private static boolean isChartLink(String line) {
		return line.startsWith("![") && line.contains("](" + DOCUMENT_DIRECTORY + "/") && line.endsWith(".svg)");
	}

	/**
	 * Redraws the charts of a results CSV beside it and, with {@code --update-doc}, for the document,
	 * whose table is kept as it is.
	 * @param options the command line, with {@link BenchmarkOptions#chartsOnly()}
	 * @return whether charts could be drawn from the file
	 */
	static boolean redraw(BenchmarkOptions options) throws IOException {
		Path csv = options.chartsSource();
		if (!Files.isRegularFile(csv)) {
			System.err.println("No results file " + csv + ": run the benchmarks first or name a results CSV.");
			return false;
		}
		ResultsCsv.Results results;
		try {
			results = ResultsCsv.read(csv);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(csv + ": " + ex.getMessage());
			return false;
		}
		List<Chart> charts = draw(results.measurements(), Targets.check(results.measurements()),
				new ChartRun(results.run(), results.command()));
		if (charts.isEmpty()) {
			System.out.println(csv + " has none of the charts' figures: nothing drawn.");
			return true;
		}
		String name = csv.getFileName().toString();
		String prefix = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
		Path directory = csv.toAbsolutePath().getParent();
		for (Path file : write(directory, prefix, charts)) {
			System.out.println("Drew " + file);
		}
		if (options.updateDocument()) {
			for (Path file : writeForDocument(options.document(), charts)) {
				System.out.println("Drew " + file);
			}
			String document = Files.readString(options.document(), StandardCharsets.UTF_8);
			String table = ResultFiles.betweenMarkers(document);
			ResultFiles.updateDocument(options.document(), withLinks(table, charts));
			System.out.println("Linked the charts above the table in " + options.document());
		}
		return true;
	}

}
