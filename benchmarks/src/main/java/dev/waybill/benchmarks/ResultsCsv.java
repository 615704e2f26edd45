package dev.waybill.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Reads back the figures of a results CSV written by {@link ResultTable#csv()}, so charts can be
 * redrawn from a results file without running the benchmarks again. Target lines of the file are
 * skipped: the charts take their targets from {@link Targets#check} over the figures read, so they
 * always show the targets of the code that draws them.
 */
final class ResultsCsv {

	private static final List<String> HEADER = List.of("kind", "benchmark", "figure", "unit", "median", "min", "max",
			"runs", "note");

	private static final Pattern RUN_OF = Pattern.compile("^Run of (\\S+) \\([^)]*\\): `([^`]*)`");

	private static final Pattern STAMP = Pattern.compile("^(\\d{8}-\\d{6})");

	private ResultsCsv() {
	}

	/**
	 * What a results file holds: its figures and, when known, when and how the run was made.
	 *
	 * @param measurements the figures, in the file's order
	 * @param run the run's start, from the Markdown beside the CSV or the file name; null if neither
	 * @param command the command of the run, from the Markdown beside the CSV; null if there is none
	 */
	record Results(List<Measurement> measurements, @Nullable LocalDateTime run, @Nullable String command) {

	}

	/**
	 * Reads a results CSV and, if there is one, the Markdown of the same name beside it.
	 * @param csv the file, e.g. {@code docs/benchmarks/latest.csv}
	 * @return the figures and the run's date and command
	 * @throws IOException when the file cannot be read
	 * @throws IllegalArgumentException when it is not a results CSV, naming the line
	 */
	static Results read(Path csv) throws IOException {
		List<Measurement> measurements = parse(Files.readString(csv, StandardCharsets.UTF_8));
		String name = csv.getFileName().toString();
		String base = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
		LocalDateTime run = null;
		String command = null;
		Path markdown = csv.resolveSibling(base + ".md");
		if (Files.isRegularFile(markdown)) {
			String firstLine = Files.readString(markdown, StandardCharsets.UTF_8).lines().findFirst().orElse("");
			Matcher matcher = RUN_OF.matcher(firstLine);
			if (matcher.find()) {
				run = dateTime(matcher.group(1), DateTimeFormatter.ISO_LOCAL_DATE_TIME);
				command = matcher.group(2);
			}
		}
		Matcher stamp = STAMP.matcher(base);
		if (run == null && stamp.find()) {
			run = dateTime(stamp.group(1), DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		}
		return new Results(measurements, run, command);
	}

	/**
	 * Parses the figures of a results CSV's text.
	 * @param text the CSV
	 * @return the figures; each has one value per run as far as the file tells them apart (the
	 * median, minimum and maximum are the file's)
	 * @throws IllegalArgumentException when the header or a line is not what {@link ResultTable}
	 * writes
	 */
	static List<Measurement> parse(String text) {
		List<List<String>> rows = cells(text);
		if (rows.isEmpty() || !rows.get(0).equals(HEADER)) {
			throw new IllegalArgumentException(
					"Not a results CSV: the first line must be " + String.join(",", HEADER) + ", was "
							+ (rows.isEmpty() ? "nothing" : String.join(",", rows.get(0))));
		}
		List<Measurement> measurements = new ArrayList<>();
		for (int i = 1; i < rows.size(); i++) {
			List<String> row = rows.get(i);
			if (row.size() == 1 && row.get(0).isBlank()) {
				continue;
			}
			if (row.size() != HEADER.size()) {
				throw new IllegalArgumentException("Line " + (i + 1) + " of the results CSV has " + row.size()
						+ " cells, not " + HEADER.size() + ": " + String.join(",", row));
			}
			if (!row.get(0).equals("figure")) {
				continue;
			}
			try {
				double median = Double.parseDouble(row.get(4));
				double min = Double.parseDouble(row.get(5));
				double max = Double.parseDouble(row.get(6));
				int runs = Integer.parseInt(row.get(7));
				measurements.add(new Measurement(row.get(1), row.get(2), row.get(3), runs(runs, median, min, max),
						row.get(8)));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("Line " + (i + 1) + " of the results CSV has a number that is not one: "
						+ String.join(",", row), ex);
			}
		}
		return measurements;
	}

	/**
	 * As many values as there were runs, whose median, minimum and maximum are those given: all that
	 * the charts and the targets need of them.
	 */
	static List<Double> runs(int count, double median, double min, double max) {
		if (count <= 1) {
			return List.of(median);
		}
		List<Double> values = new ArrayList<>(count);
		values.add(min);
		for (int i = 0; i < count - 2; i++) {
			values.add(median);
		}
		values.add(max);
		return values;
	}

	private static List<List<String>> cells(String text) {
		List<List<String>> rows = new ArrayList<>();
		List<String> row = new ArrayList<>();
		StringBuilder cell = new StringBuilder();
		boolean quoted = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (quoted) {
				if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
					cell.append('"');
					i++;
				}
				else if (c == '"') {
					quoted = false;
				}
				else {
					cell.append(c);
				}
			}
			else if (c == '"') {
				quoted = true;
			}
			else if (c == ',') {
				row.add(cell.toString());
				cell.setLength(0);
			}
			else if (c == '\n') {
				row.add(stripCarriageReturn(cell));
				rows.add(row);
				row = new ArrayList<>();
				cell.setLength(0);
			}
			else {
				cell.append(c);
			}
		}
		if (cell.length() > 0 || !row.isEmpty()) {
			row.add(stripCarriageReturn(cell));
			rows.add(row);
		}
		return rows;
	}

	private static String stripCarriageReturn(StringBuilder cell) {
		String text = cell.toString();
		return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
	}

	private static @Nullable LocalDateTime dateTime(String text, DateTimeFormatter format) {
		try {
			return LocalDateTime.parse(text.toUpperCase(Locale.ROOT), format);
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

}
