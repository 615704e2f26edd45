package dev.waybill.benchmarks;

import static dev.waybill.benchmarks.ThroughputChart.GRID_COLOUR;
import static dev.waybill.benchmarks.ThroughputChart.MUTED_COLOUR;
import static dev.waybill.benchmarks.ThroughputChart.REFERENCE_COLOUR;
import static dev.waybill.benchmarks.ThroughputChart.TARGET_COLOUR;
import static dev.waybill.benchmarks.ThroughputChart.TEXT_COLOUR;
import static dev.waybill.benchmarks.ThroughputChart.WAYBILL_COLOUR;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Latency percentiles (p50, p95, p99) at each offered rate, Waybill's commit to confirm beside the
 * floor (the bare publisher's publish to confirm at the same rate), on a log-scale axis in
 * milliseconds. Bars are medians, whiskers the minimum to maximum of the runs, and a dashed line
 * the target from {@link Targets} where one is drawn on that figure. A percentile the run did not
 * measure (the floor has no p95, say) leaves its place empty.
 */
final class LatencyChart {

	static final List<String> PERCENTILES = List.of("p50", "p95", "p99");

	private static final Pattern WAYBILL = Pattern.compile("^(p\\d+) @ ([\\d,]+) msg/s$");

	/** The floor's figures: any latency figure naming a bare publisher or the floor before its percentile. */
	private static final Pattern FLOOR = Pattern.compile("^.*\\b(?:bare|floor)\\b.* (p\\d+) @ ([\\d,]+) msg/s$");

	private static final Pattern ACHIEVED = Pattern.compile("^achieved @ ([\\d,]+) msg/s$");

	private static final double LEFT = 78;

	private static final double RIGHT = 744;

	static final double TOP = 104;

	static final double BOTTOM = 380;

	private static final int HEIGHT = 444;

	private LatencyChart() {
	}

	/**
	 * Draws the chart.
	 * @param measurements the run's figures
	 * @param targets the run's targets; those with a line on a drawn figure are drawn
	 * @param run the run's date and command
	 * @return the SVG, or empty when the run measured no latency percentile
	 */
	static Optional<String> draw(List<Measurement> measurements, List<Target> targets, ChartRun run) {
		Map<Integer, Map<String, Pair>> rates = new TreeMap<>();
		Map<Integer, Double> achieved = new TreeMap<>();
		for (Measurement m : measurements) {
			if (!m.benchmark().equals(Latency.NAME) || !m.unit().equals("ms") && !m.unit().equals("msg/s")) {
				continue;
			}
			Matcher waybill = WAYBILL.matcher(m.figure());
			Matcher floor = FLOOR.matcher(m.figure());
			Matcher rate = ACHIEVED.matcher(m.figure());
			if (m.unit().equals("ms") && waybill.matches() && PERCENTILES.contains(waybill.group(1))) {
				pair(rates, waybill.group(2), waybill.group(1)).waybill = m;
			}
			else if (m.unit().equals("ms") && floor.matches() && PERCENTILES.contains(floor.group(1))) {
				pair(rates, floor.group(2), floor.group(1)).floor = m;
			}
			else if (m.unit().equals("msg/s") && rate.matches()) {
				achieved.put(rate(rate.group(1)), m.median());
			}
		}
		rates.values().removeIf((byPercentile) -> byPercentile.values().stream().allMatch((p) -> p.waybill == null));
		if (rates.isEmpty()) {
			return Optional.empty();
		}
		double min = Double.MAX_VALUE;
		double max = 0;
		for (Map<String, Pair> byPercentile : rates.values()) {
			for (Pair pair : byPercentile.values()) {
				for (Measurement m : pair.both()) {
					min = Math.min(min, Math.min(m.min(), m.median()));
					max = Math.max(max, m.max());
					Target target = ThroughputChart.targetOn(targets, m);
					if (target != null && target.line() != null) {
						min = Math.min(min, target.line().value());
						max = Math.max(max, target.line().value());
					}
				}
			}
		}
		ChartScale scale = ChartScale.log(Math.max(min, 1e-3), Math.max(max, 1e-3), BOTTOM, TOP);
		Svg svg = new Svg(ThroughputChart.WIDTH, HEIGHT);
		String title = run.title("Waybill latency against the floor");
		svg.text(16, 26, title, 16, "start", TEXT_COLOUR, true);
		svg.text(16, 44, run.subtitle(measurements), 11, "start", MUTED_COLOUR, false);
		ThroughputChart.legend(svg, 64, "floor (bare publisher)", "Waybill (commit to confirm)",
				"target (stay under it)");
		axis(svg, scale);
		double groupWidth = (RIGHT - LEFT) / rates.size();
		int group = 0;
		for (Map.Entry<Integer, Map<String, Pair>> entry : rates.entrySet()) {
			double groupLeft = LEFT + group * groupWidth;
			drawGroup(svg, scale, targets, groupLeft, groupWidth, entry.getKey(), entry.getValue(),
					achieved.get(entry.getKey()));
			if (group > 0) {
				svg.line(groupLeft, TOP, groupLeft, BOTTOM + 40, GRID_COLOUR, 1, null);
			}
			group++;
		}
		return Optional.of(svg.document(title));
	}

	private static void axis(Svg svg, ChartScale scale) {
		for (double tick : scale.ticks()) {
			double y = scale.pixel(tick);
			svg.line(LEFT, y, RIGHT, y, GRID_COLOUR, 1, null);
			svg.line(LEFT - 4, y, LEFT, y, MUTED_COLOUR, 1, null);
			svg.text(LEFT - 7, y + 4, milliseconds(tick), 10, "end", MUTED_COLOUR, false);
		}
		svg.line(LEFT, TOP, LEFT, BOTTOM, MUTED_COLOUR, 1, null);
		svg.line(LEFT, BOTTOM, RIGHT, BOTTOM, MUTED_COLOUR, 1, null);
		svg.text(22, (TOP + BOTTOM) / 2, "latency, ms (log scale)", 11, "middle", TEXT_COLOUR, false, -90);
	}

	private static void drawGroup(Svg svg, ChartScale scale, List<Target> targets, double left, double width, int rate,
			Map<String, Pair> byPercentile, @Nullable Double achieved) {
		double slot = width / PERCENTILES.size();
		double bar = Math.min(26, slot / 2 - 6);
		for (int i = 0; i < PERCENTILES.size(); i++) {
			String percentile = PERCENTILES.get(i);
			double centre = left + slot * i + slot / 2;
			Pair pair = byPercentile.get(percentile);
			if (pair != null) {
				bar(svg, scale, targets, pair.waybill, centre - bar - 1, bar, WAYBILL_COLOUR);
				bar(svg, scale, targets, pair.floor, centre + 1, bar, REFERENCE_COLOUR);
			}
			svg.text(centre, BOTTOM + 14, percentile, 11, "middle", TEXT_COLOUR, false);
		}
		String offered = String.format(Locale.ROOT, "%,d msg/s offered", rate);
		svg.text(left + width / 2, BOTTOM + 32, offered, 12, "middle", TEXT_COLOUR, true);
		if (achieved != null && achieved < 0.95 * rate) {
			svg.text(left + width / 2, BOTTOM + 47, "Waybill achieved " + ResultTable.number(achieved) + " msg/s", 10,
					"middle", TARGET_COLOUR, false);
		}
	}

	private static void bar(Svg svg, ChartScale scale, List<Target> targets, @Nullable Measurement m, double x,
			double width, String colour) {
		if (m == null) {
			return;
		}
		double centre = x + width / 2;
		double top = scale.pixel(m.median());
		svg.rect(x, top, width, BOTTOM - top, colour, m.figure() + ": " + ResultTable.number(m.median()) + " ms (min "
				+ ResultTable.number(m.min()) + ", max " + ResultTable.number(m.max()) + ")");
		double labelAbove = top;
		if (m.runs().size() > 1) {
			double from = scale.pixel(m.min());
			double to = scale.pixel(m.max());
			svg.line(centre, from, centre, to, ThroughputChart.WHISKER_COLOUR, 1.2, null);
			svg.line(centre - 4, from, centre + 4, from, ThroughputChart.WHISKER_COLOUR, 1.2, null);
			svg.line(centre - 4, to, centre + 4, to, ThroughputChart.WHISKER_COLOUR, 1.2, null);
			labelAbove = Math.min(labelAbove, to);
		}
		Target target = ThroughputChart.targetOn(targets, m);
		String valueColour = TEXT_COLOUR;
		if (target != null && target.line() != null) {
			double y = scale.pixel(target.line().value());
			svg.line(x - 3, y, x + width + 3, y, TARGET_COLOUR, 2, "4 2", "target: " + target.name() + " " + target.goal()
					+ ", measured " + ResultTable.number(target.measured()) + ", " + (target.met() ? "met" : "missed"));
			labelAbove = Math.min(labelAbove, y - 2);
			valueColour = target.met() ? TEXT_COLOUR : TARGET_COLOUR;
		}
		svg.text(centre, labelAbove - 4, ResultTable.number(m.median()), 9, "middle", valueColour, false);
	}

	static String milliseconds(double value) {
		return value >= 1 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%s",
				java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString());
	}

	private static Pair pair(Map<Integer, Map<String, Pair>> rates, String rate, String percentile) {
		return rates.computeIfAbsent(rate(rate), (r) -> new TreeMap<>()).computeIfAbsent(percentile, (p) -> new Pair());
	}

	private static int rate(String text) {
		return Integer.parseInt(text.replace(",", ""));
	}

	/** Waybill's figure and the floor's for one percentile at one rate; either may be missing. */
	private static final class Pair {

		@Nullable Measurement waybill;

		@Nullable Measurement floor;

		List<Measurement> both() {
			List<Measurement> both = new ArrayList<>();
			if (this.waybill != null) {
				both.add(this.waybill);
			}
			if (this.floor != null) {
				both.add(this.floor);
			}
			return both;
		}

	}

}
