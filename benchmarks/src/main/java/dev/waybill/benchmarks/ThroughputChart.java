package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Throughput against the ceilings as horizontal bars, one panel per comparison (relay against the
 * broker, the write path with and without the outbox, the inbox against a bare consumer, writers
 * during and without a purge), each panel on its own scale. A bar is the median, its whisker the
 * minimum to maximum of the runs, and a dashed line the target from {@link Targets}, where one is
 * drawn on that figure. Figures a run did not measure are left out, and so is a panel without any.
 */
final class ThroughputChart {

	static final int WIDTH = 760;

	static final String REFERENCE_COLOUR = "#9aa5b1";

	static final String WAYBILL_COLOUR = "#2f6fb5";

	static final String WHISKER_COLOUR = "#1f2933";

	static final String TARGET_COLOUR = "#d64545";

	static final String TEXT_COLOUR = "#1f2933";

	static final String MUTED_COLOUR = "#52606d";

	static final String GRID_COLOUR = "#e4e7eb";

	private static final double LABEL_RIGHT = 238;

	static final double PLOT_LEFT = 246;

	static final double PLOT_RIGHT = 630;

	private static final double ROW = 26;

	private static final double BAR = 16;

	private static final int LABEL_CHARACTERS = 36;

	private static final List<Panel> PANELS = List.of(
			new Panel("Relay against the broker ceiling", "msg/s",
					(m) -> m.benchmark().equals(BrokerCeiling.NAME) && m.figure().equals(BrokerCeiling.FIGURE)
							|| m.benchmark().equals(RelayThroughput.NAME),
					(m) -> m.benchmark().equals(BrokerCeiling.NAME)),
			new Panel("Write path: business transactions with and without the outbox", "tx/s",
					(m) -> m.benchmark().equals(WritePath.NAME),
					// whatever else the write path measures beside the outbox (the database's own floor) is a baseline
					(m) -> !m.figure().equals(WritePath.WITH)),
			new Panel("Inbox against a bare consumer", "msg/s", (m) -> m.benchmark().equals(InboxThroughput.NAME),
					(m) -> m.figure().equals(InboxThroughput.BARE)),
			new Panel("Writers during a retention purge", "tx/s",
					(m) -> m.benchmark().equals(RetentionPurge.NAME) && m.figure().startsWith("write load"),
					(m) -> m.figure().equals(RetentionPurge.WITHOUT)));

	private ThroughputChart() {
	}

	/**
	 * Draws the chart.
	 * @param measurements the run's figures
	 * @param targets the run's targets; those with a line on a drawn figure are drawn
	 * @param run the run's date and command
	 * @return the SVG, or empty when the run measured none of the figures drawn here
	 */
	static Optional<String> draw(List<Measurement> measurements, List<Target> targets, ChartRun run) {
		List<Filled> panels = new ArrayList<>();
		for (Panel panel : PANELS) {
			List<Measurement> bars = measurements.stream()
				.filter((m) -> m.unit().equals(panel.unit()) && panel.figures().test(m))
				.toList();
			if (!bars.isEmpty()) {
				panels.add(new Filled(panel, bars));
			}
		}
		if (panels.isEmpty()) {
			return Optional.empty();
		}
		double height = 92;
		for (Filled panel : panels) {
			height += panelHeight(panel);
		}
		Svg svg = new Svg(WIDTH, (int) Math.ceil(height));
		String title = run.title("Waybill throughput against the ceilings");
		svg.text(16, 26, title, 16, "start", TEXT_COLOUR, true);
		svg.text(16, 44, run.subtitle(measurements), 11, "start", MUTED_COLOUR, false);
		legend(svg, 64, "ceiling / baseline", "Waybill", "target (the bar must reach it)");
		double y = 92;
		for (Filled panel : panels) {
			drawPanel(svg, panel, targets, y);
			y += panelHeight(panel);
		}
		return Optional.of(svg.document(title));
	}

	/**
	 * The key under the title: the two bar colours, the whisker and the target line.
	 */
	static void legend(Svg svg, double y, String reference, String waybill, String target) {
		double x = 16;
		svg.rect(x, y - 9, 14, 10, REFERENCE_COLOUR, null);
		svg.text(x + 19, y, reference, 11, "start", TEXT_COLOUR, false);
		x += 19 + textWidth(reference, 11) + 18;
		svg.rect(x, y - 9, 14, 10, WAYBILL_COLOUR, null);
		svg.text(x + 19, y, waybill, 11, "start", TEXT_COLOUR, false);
		x += 19 + textWidth(waybill, 11) + 18;
		whisker(svg, x, x + 22, y - 4);
		String range = "min to max of the runs";
		svg.text(x + 28, y, range, 11, "start", TEXT_COLOUR, false);
		x += 28 + textWidth(range, 11) + 18;
		svg.line(x + 7, y - 11, x + 7, y + 2, TARGET_COLOUR, 2, "4 2");
		svg.text(x + 16, y, target, 11, "start", TEXT_COLOUR, false);
	}

	/**
	 * About how wide a text is in a sans-serif font: enough to lay out a legend without measuring.
	 */
	static double textWidth(String text, double size) {
		return text.length() * size * 0.6;
	}

	private static double panelHeight(Filled panel) {
		return 24 + panel.bars().size() * ROW + 40;
	}

	private static void drawPanel(Svg svg, Filled filled, List<Target> targets, double top) {
		Panel panel = filled.panel();
		svg.text(16, top + 14, panel.title() + " (" + panel.unit() + ")", 13, "start", TEXT_COLOUR, true);
		double barsTop = top + 24;
		double axisY = barsTop + filled.bars().size() * ROW + 4;
		double max = 0;
		for (Measurement m : filled.bars()) {
			max = Math.max(max, m.max());
			Target target = targetOn(targets, m);
			if (target != null && target.line() != null) {
				max = Math.max(max, target.line().value());
			}
		}
		ChartScale scale = ChartScale.linear(max, PLOT_LEFT, PLOT_RIGHT);
		for (double tick : scale.ticks()) {
			double x = scale.pixel(tick);
			svg.line(x, barsTop - 2, x, axisY, GRID_COLOUR, 1, null);
			svg.line(x, axisY, x, axisY + 4, MUTED_COLOUR, 1, null);
			svg.text(x, axisY + 16, axisNumber(tick), 10, "middle", MUTED_COLOUR, false);
		}
		svg.line(PLOT_LEFT, axisY, scale.pixel(scale.high), axisY, MUTED_COLOUR, 1, null);
		svg.line(PLOT_LEFT, barsTop - 2, PLOT_LEFT, axisY, MUTED_COLOUR, 1, null);
		svg.text(scale.pixel(scale.high), axisY + 30, panel.unit(), 10, "end", MUTED_COLOUR, false);
		for (int i = 0; i < filled.bars().size(); i++) {
			Measurement m = filled.bars().get(i);
			double rowTop = barsTop + i * ROW;
			double middle = rowTop + ROW / 2;
			String label = label(m);
			String shown = label.length() > LABEL_CHARACTERS ? label.substring(0, LABEL_CHARACTERS - 1) + "\u2026" : label;
			svg.text(LABEL_RIGHT, middle + 4, shown, 11, "end", TEXT_COLOUR, false);
			boolean reference = panel.reference().test(m);
			double end = scale.pixel(m.median());
			svg.rect(PLOT_LEFT, middle - BAR / 2, end - PLOT_LEFT, BAR, reference ? REFERENCE_COLOUR : WAYBILL_COLOUR,
					m.benchmark() + " / " + m.figure() + ": " + ResultTable.number(m.median()) + " " + m.unit() + " (min "
							+ ResultTable.number(m.min()) + ", max " + ResultTable.number(m.max()) + ")");
			if (m.runs().size() > 1) {
				whisker(svg, scale.pixel(m.min()), scale.pixel(m.max()), middle);
			}
			double right = Math.max(end, scale.pixel(m.max()));
			String value = ResultTable.number(m.median());
			Target target = targetOn(targets, m);
			String colour = TEXT_COLOUR;
			if (target != null && target.line() != null) {
				double x = scale.pixel(target.line().value());
				svg.line(x, middle - BAR / 2 - 4, x, middle + BAR / 2 + 4, TARGET_COLOUR, 2, "4 2",
						"target: " + target.name() + " " + target.goal() + ", measured "
								+ ResultTable.number(target.measured()) + ", " + (target.met() ? "met" : "missed"));
				right = Math.max(right, x);
				value += target.met() ? " \u00b7 target met" : " \u00b7 target missed";
				colour = target.met() ? TEXT_COLOUR : TARGET_COLOUR;
			}
			svg.text(right + 6, middle + 4, value, 11, "start", colour, false);
		}
	}

	static void whisker(Svg svg, double from, double to, double y) {
		svg.line(from, y, to, y, WHISKER_COLOUR, 1.2, null);
		svg.line(from, y - 4, from, y + 4, WHISKER_COLOUR, 1.2, null);
		svg.line(to, y - 4, to, y + 4, WHISKER_COLOUR, 1.2, null);
	}

	static @Nullable Target targetOn(List<Target> targets, Measurement m) {
		for (Target target : targets) {
			Target.Line line = target.line();
			if (line != null && line.benchmark().equals(m.benchmark()) && line.figure().equals(m.figure())) {
				return target;
			}
		}
		return null;
	}

	/**
	 * A bar's label: short names for the figures this chart knows, the figure itself otherwise.
	 */
	static String label(Measurement m) {
		if (m.benchmark().equals(BrokerCeiling.NAME)) {
			return "broker ceiling (bare publisher)";
		}
		if (m.benchmark().equals(RelayThroughput.NAME)) {
			return "relay, " + m.figure().replace("backlog drained, ", "");
		}
		if (m.figure().equals(WritePath.WITHOUT)) {
			return "1 row insert, no outbox";
		}
		if (m.figure().equals(WritePath.WITH)) {
			return "1 row + @Outbox publish of 1 msg";
		}
		if (m.figure().equals(InboxThroughput.BARE)) {
			return "bare consume + ack";
		}
		if (m.figure().equals(InboxThroughput.INBOX)) {
			return "inbox (dedupe + handler + ack)";
		}
		if (m.benchmark().equals(WritePath.NAME) && m.figure().contains("database floor")) {
			return "database floor (plain SQL)";
		}
		if (m.benchmark().equals(RetentionPurge.NAME)) {
			return m.figure().replace("write load", "writers");
		}
		return m.figure();
	}

	static String axisNumber(double value) {
		return value == Math.rint(value) ? String.format(Locale.ROOT, "%,.0f", value)
				: String.format(Locale.ROOT, "%,.1f", value);
	}

	/**
	 * One comparison: which figures it shows, in which unit, and which of them is the ceiling or
	 * baseline (drawn grey) rather than Waybill (drawn blue).
	 */
	private record Panel(String title, String unit, Predicate<Measurement> figures, Predicate<Measurement> reference) {

	}

	private record Filled(Panel panel, List<Measurement> bars) {

	}

}
