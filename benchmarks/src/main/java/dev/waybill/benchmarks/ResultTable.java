package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures and targets of one run, rendered as a Markdown table (for BENCHMARKS.md and the
 * console) and as CSV (one line per figure, then one per target).
 */
public final class ResultTable {

	private static final List<String> COLUMNS = List.of("benchmark", "figure", "unit", "median", "min", "max", "runs",
			"note");

	private final List<Measurement> measurements;

	private final List<Target> targets;

	public ResultTable(List<Measurement> measurements, List<Target> targets) {
		this.measurements = List.copyOf(measurements);
		this.targets = List.copyOf(targets);
	}

	public List<Measurement> measurements() {
		return this.measurements;
	}

	public List<Target> targets() {
		return this.targets;
	}

	/**
	 * Renders the figures, then the targets, as Markdown tables.
	 * @return the Markdown
	 */
	public String markdown() {
		StringBuilder out = new StringBuilder();
		out.append("| benchmark | figure | unit | median | min | max | runs | note |\n");
		out.append("|---|---|---|---:|---:|---:|---:|---|\n");
		for (Measurement m : this.measurements) {
			out.append(row(m.benchmark(), m.figure(), m.unit(), number(m.median()), number(m.min()), number(m.max()),
					String.valueOf(m.runs().size()), m.note()));
		}
		if (!this.targets.isEmpty()) {
			out.append("\n| target | goal | measured | result |\n");
			out.append("|---|---|---:|---|\n");
			for (Target t : this.targets) {
				out.append(row(t.name(), t.goal(), number(t.measured()), t.met() ? "met" : "**missed**"));
			}
		}
		return out.toString();
	}

	/**
	 * Renders every figure and target as CSV with a header line; targets have kind {@code target}.
	 * @return the CSV
	 */
	public String csv() {
		StringBuilder out = new StringBuilder("kind,").append(String.join(",", COLUMNS)).append('\n');
		for (Measurement m : this.measurements) {
			List<String> cells = new ArrayList<>(List.of("figure", m.benchmark(), m.figure(), m.unit(),
					plain(m.median()), plain(m.min()), plain(m.max()), String.valueOf(m.runs().size()), m.note()));
			out.append(csvLine(cells));
		}
		for (Target t : this.targets) {
			out.append(csvLine(List.of("target", t.name(), t.goal(), "ratio", plain(t.measured()), "", "", "",
					t.met() ? "met" : "missed")));
		}
		return out.toString();
	}

	/**
	 * Formats a figure for reading: thousands separators from 100 up, fewer decimals as it grows.
	 * @param value the value
	 * @return the text
	 */
	static String number(double value) {
		double magnitude = Math.abs(value);
		if (magnitude >= 100) {
			return String.format(Locale.ROOT, "%,.0f", value);
		}
		if (magnitude >= 10) {
			return String.format(Locale.ROOT, "%.1f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

	private static String plain(double value) {
		return String.format(Locale.ROOT, "%.3f", value);
	}

	private static String row(String... cells) {
		StringBuilder line = new StringBuilder("|");
		for (String cell : cells) {
			line.append(' ').append(cell.replace("|", "\\|")).append(" |");
		}
		return line.append('\n').toString();
	}

	static String csvLine(List<String> cells) {
		List<String> quoted = new ArrayList<>(cells.size());
		for (String cell : cells) {
			boolean quote = cell.contains(",") || cell.contains("\"") || cell.contains("\n");
			quoted.add(quote ? "\"" + cell.replace("\"", "\"\"") + "\"" : cell);
		}
		return String.join(",", quoted) + "\n";
	}

}
