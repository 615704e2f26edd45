package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class ChartsTests {

	private static final ChartRun RUN = new ChartRun(LocalDateTime.of(2026, 11, 23, 15, 0, 10),
			"./benchmarks/run all --runs 3");

	/** A whole run's figures, as the benchmarks name them. */
	private static final String CSV = """
			kind,benchmark,figure,unit,median,min,max,runs,note
			figure,broker,"bare publisher, persistent 1 KiB, confirms",msg/s,10000.000,9000.000,11000.000,3,"50000 msgs"
			figure,relay,"backlog drained, scopes of 1",msg/s,8000.000,7500.000,8200.000,3,x
			figure,relay,"backlog drained, scopes of 10",msg/s,9500.000,9000.000,9600.000,3,x
			figure,writepath,"1 row insert, no outbox",tx/s,7000.000,6000.000,7100.000,3,x
			figure,writepath,1 row insert + @Outbox publish of 1 msg,tx/s,3000.000,2500.000,3100.000,3,x
			figure,latency,p50 @ 100 msg/s,ms,2.000,1.500,2.500,3,x
			figure,latency,p95 @ 100 msg/s,ms,5.000,4.000,8.000,3,x
			figure,latency,p99 @ 100 msg/s,ms,9.000,7.000,16.000,3,x
			figure,latency,max @ 100 msg/s,ms,14.000,10.000,35.000,3,x
			figure,latency,achieved @ 100 msg/s,msg/s,100.000,100.000,100.000,3,x
			figure,latency,floor (bare broker under write load) p50 @ 100 msg/s,ms,1.500,1.400,1.600,3,x
			figure,latency,floor (bare broker under write load) p99 @ 100 msg/s,ms,6.000,5.000,7.000,3,x
			figure,latency,"p50 @ 1,000 msg/s",ms,1.000,0.800,1.500,3,x
			figure,latency,"p95 @ 1,000 msg/s",ms,40.000,30.000,50.000,3,x
			figure,latency,"p99 @ 1,000 msg/s",ms,60.000,55.000,70.000,3,x
			figure,latency,"p50 commit to claim @ 1,000 msg/s",ms,0.400,0.300,0.500,3,x
			figure,latency,"achieved @ 1,000 msg/s",msg/s,990.000,980.000,999.000,3,x
			figure,latency,"floor (bare broker under write load) p50 @ 1,000 msg/s",ms,0.700,0.600,0.800,3,x
			figure,latency,"floor (bare broker under write load) p99 @ 1,000 msg/s",ms,50.000,40.000,52.000,3,x
			figure,latency,"p50 @ 5,000 msg/s",ms,20.000,18.000,22.000,3,x
			figure,latency,"p95 @ 5,000 msg/s",ms,200.000,80.000,260.000,3,x
			figure,latency,"p99 @ 5,000 msg/s",ms,350.000,190.000,440.000,3,x
			figure,latency,"achieved @ 5,000 msg/s",msg/s,1357.000,1149.000,1543.000,3,x
			figure,latency,"floor (bare broker under write load) p50 @ 5,000 msg/s",ms,3.000,2.500,3.500,3,x
			figure,latency,"floor (bare broker under write load) p99 @ 5,000 msg/s",ms,250.000,210.000,290.000,3,x
			figure,inbox,bare consume + ack,msg/s,13000.000,12000.000,13400.000,3,x
			figure,inbox,inbox: dedupe + handler insert + ack,msg/s,2200.000,1600.000,2300.000,3,x
			figure,retention,purge of eligible scopes (+ their messages),scopes/s,49000.000,48000.000,51000.000,3,x
			figure,retention,write load without purge,tx/s,2700.000,2500.000,2800.000,3,x
			figure,retention,write load during purge,tx/s,1500.000,1400.000,1550.000,3,x
			figure,retention,write load during / without purge,ratio,0.550,0.540,0.560,3,x
			figure,scale,"claim time, 0 kept",ms,3.700,3.500,8.800,3,x
			target,"relay / broker ceiling, scopes of 1",>= 0.50,ratio,0.800,,,,met
			""";

	private final List<Measurement> measurements = ResultsCsv.parse(CSV);

	private final List<Target> targets = Targets.check(this.measurements);

	@Test
	void throughputHasOneBarPerFigureOfEachComparisonWithItsLabelAndWhisker() throws Exception {
		Document svg = SvgXml.parse(ThroughputChart.draw(this.measurements, this.targets, RUN).orElseThrow());
		// broker; writepath without; bare consume; writers without
		assertThat(bars(svg, ThroughputChart.REFERENCE_COLOUR)).isEqualTo(4);
		// relay x2; with outbox; inbox; writers during
		assertThat(bars(svg, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(5);
		List<String> texts = SvgXml.texts(svg);
		assertThat(texts).contains("Waybill throughput against the ceilings, run of 2026-11-23 15:00",
				"Relay against the broker ceiling (msg/s)", "broker ceiling (bare publisher)", "relay, scopes of 1",
				"relay, scopes of 10", "Write path: business transactions with and without the outbox (tx/s)",
				"1 row insert, no outbox", "1 row + @Outbox publish of 1 msg", "Inbox against a bare consumer (msg/s)",
				"bare consume + ack", "inbox (dedupe + handler + ack)", "Writers during a retention purge (tx/s)",
				"writers without purge", "writers during purge", "10,000", "2,200 \u00b7 target missed");
		assertThat(texts).anyMatch((t) -> t.startsWith("./benchmarks/run all --runs 3"));
		// the purge rate (scopes/s) and the ratio row are not throughput of writers
		assertThat(String.join("|", texts)).doesNotContain("purge of eligible").doesNotContain("during / without");
		// 9 bars, each a whisker of 3 lines (legend: 1 more)
		assertThat(SvgXml.count(svg, "//line[@stroke='" + ThroughputChart.WHISKER_COLOUR + "']")).isEqualTo(10 * 3);
	}

	@Test
	void targetLinesComeFromTheTargetsAndSitWhereTheirValueIs() throws Exception {
		Document svg = SvgXml.parse(ThroughputChart.draw(this.measurements, this.targets, RUN).orElseThrow());
		// relay 1 and 10, write path, inbox, writers during purge
		List<Element> lines = targetLines(svg);
		assertThat(lines).hasSize(5);
		// relay panel: scale 0..12,500 over the plot; relay's target is 0.9 x the broker's 10,000
		ChartScale relayScale = ChartScale.linear(11_000, ThroughputChart.PLOT_LEFT, ThroughputChart.PLOT_RIGHT);
		assertThat(Double.parseDouble(lines.get(0).getAttribute("x1"))).isCloseTo(relayScale.pixel(9_000), within(0.06));
		assertThat(lines.get(0).getParentNode().getTextContent().strip())
			.isEqualTo("target: relay / broker ceiling, scopes of 1 >= 0.90, measured 0.80, missed");

		Target moved = new Target("relay", ">= 0.5", 0.8, true).drawnOn(RelayThroughput.NAME, RelayThroughput.figure(1),
				5_000);
		Document other = SvgXml.parse(ThroughputChart.draw(this.measurements, List.of(moved), RUN).orElseThrow());
		assertThat(targetLines(other)).hasSize(1);
		assertThat(Double.parseDouble(targetLines(other).get(0).getAttribute("x1")))
			.isCloseTo(relayScale.pixel(5_000), within(0.06));

		Target undrawn = new Target("relay", ">= 0.5", 0.8, true);
		assertThat(targetLines(SvgXml.parse(ThroughputChart.draw(this.measurements, List.of(undrawn), RUN).orElseThrow())))
			.isEmpty();
	}

	@Test
	void latencyHasWaybillAndTheFloorForEachPercentileAndRate() throws Exception {
		Document svg = SvgXml.parse(LatencyChart.draw(this.measurements, this.targets, RUN).orElseThrow());
		assertThat(bars(svg, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(3 * 3);
		// the floor has no p95
		assertThat(bars(svg, ThroughputChart.REFERENCE_COLOUR)).isEqualTo(3 * 2);
		List<String> texts = SvgXml.texts(svg);
		assertThat(texts).contains("Waybill latency against the floor, run of 2026-11-23 15:00", "100 msg/s offered",
				"1,000 msg/s offered", "5,000 msg/s offered", "latency, ms (log scale)", "0.1", "1", "10", "100", "1,000",
				"Waybill achieved 1,357 msg/s");
		assertThat(texts).filteredOn("p99"::equals).hasSize(3);
		assertThat(texts).doesNotContain("Waybill achieved 990 msg/s");
		// commit-to-claim and max are not percentiles of the comparison
		assertThat(SvgXml.count(svg, "//rect/title[contains(., 'claim') or starts-with(., 'max')]")).isZero();
		// p99 and p50 @ 1,000 msg/s: 1.5 x and 2 x the floor's
		assertThat(targetLines(svg)).hasSize(2);
	}

	@Test
	void latencyBarsRiseToTheirMedianOnTheLogScale() throws Exception {
		Document svg = SvgXml.parse(LatencyChart.draw(this.measurements, this.targets, RUN).orElseThrow());
		ChartScale scale = ChartScale.log(0.6, 440, LatencyChart.BOTTOM, LatencyChart.TOP);
		Element tenMs = SvgXml.nodes(svg, "//rect[starts-with(title, 'p50 @ 1,000 msg/s:')]").get(0);
		assertThat(Double.parseDouble(tenMs.getAttribute("y"))).isCloseTo(scale.pixel(1), within(0.06));
		assertThat(Double.parseDouble(tenMs.getAttribute("y")) + Double.parseDouble(tenMs.getAttribute("height")))
			.isCloseTo(LatencyChart.BOTTOM, within(0.11));
		Element floor = SvgXml.nodes(svg, "//rect[starts-with(title, 'floor (bare broker under write load) p99 @ 5,000 msg/s:')]").get(0);
		assertThat(Double.parseDouble(floor.getAttribute("y"))).isCloseTo(scale.pixel(250), within(0.06));
	}

	@Test
	void aSubsetRunDrawsWhatItMeasured() throws Exception {
		List<Measurement> relayOnly = this.measurements.stream()
			.filter((m) -> m.benchmark().equals("broker") || m.benchmark().equals("relay"))
			.toList();
		List<Charts.Chart> charts = Charts.draw(relayOnly, Targets.check(relayOnly), RUN);
		assertThat(charts).extracting(Charts.Chart::name).containsExactly("throughput");
		Document svg = SvgXml.parse(charts.get(0).svg());
		assertThat(bars(svg, ThroughputChart.REFERENCE_COLOUR) + bars(svg, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(3);
		assertThat(SvgXml.texts(svg)).doesNotContain("Inbox against a bare consumer (msg/s)");

		List<Measurement> relayWithoutBroker = relayOnly.stream().filter((m) -> m.benchmark().equals("relay")).toList();
		Document noCeiling = SvgXml.parse(Charts.draw(relayWithoutBroker, Targets.check(relayWithoutBroker), RUN).get(0).svg());
		assertThat(bars(noCeiling, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(2);
		assertThat(targetLines(noCeiling)).isEmpty();
	}

	@Test
	void latencyWithoutTheFloorDrawsWaybillAlone() throws Exception {
		List<Measurement> noFloor = this.measurements.stream()
			.filter((m) -> m.benchmark().equals("latency") && !m.figure().startsWith(Latency.FLOOR))
			.toList();
		List<Charts.Chart> charts = Charts.draw(noFloor, Targets.check(noFloor), new ChartRun(null, null));
		assertThat(charts).extracting(Charts.Chart::name).containsExactly("latency");
		Document svg = SvgXml.parse(charts.get(0).svg());
		assertThat(bars(svg, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(9);
		assertThat(bars(svg, ThroughputChart.REFERENCE_COLOUR)).isZero();
		assertThat(SvgXml.texts(svg)).contains("Waybill latency against the floor");
	}

	@Test
	void aRunWithNoneOfTheChartsFiguresDrawsNothing() {
		List<Measurement> scale = this.measurements.stream().filter((m) -> m.benchmark().equals("scale")).toList();
		assertThat(Charts.draw(scale, Targets.check(scale), RUN)).isEmpty();
		assertThat(Charts.draw(List.of(), List.of(), RUN)).isEmpty();
	}

	@Test
	void aSingleRunHasNoWhiskers() throws Exception {
		List<Measurement> once = List.of(new Measurement(BrokerCeiling.NAME, BrokerCeiling.FIGURE, "msg/s", List.of(1000.0), ""));
		Document svg = SvgXml.parse(Charts.draw(once, List.of(), RUN).get(0).svg());
		// the legend's whisker only
		assertThat(SvgXml.count(svg, "//line[@stroke='" + ThroughputChart.WHISKER_COLOUR + "']")).isEqualTo(3);
		assertThat(SvgXml.texts(svg)).anyMatch((t) -> t.endsWith("one run per figure"));
	}

	@Test
	void moreFiguresOfAComparisonAreDrawnToo() throws Exception {
		List<Measurement> more = new ArrayList<>(this.measurements);
		more.add(new Measurement(WritePath.NAME, "1 row insert + the outbox rows as plain SQL (database floor)", "tx/s",
				List.of(4000.0, 3900.0, 4100.0), ""));
		more.add(new Measurement(RetentionPurge.NAME, "write load during flat-out purge", "tx/s", List.of(900.0, 800.0), ""));
		more.add(new Measurement(InboxThroughput.NAME, "inbox, batches of up to 16 deliveries per transaction", "msg/s",
				List.of(6000.0), ""));
		Document svg = SvgXml.parse(ThroughputChart.draw(more, Targets.check(more), RUN).orElseThrow());
		// the database floor is a baseline; the flat-out writers and the batched inbox are Waybill
		assertThat(bars(svg, ThroughputChart.REFERENCE_COLOUR)).isEqualTo(5);
		assertThat(bars(svg, ThroughputChart.WAYBILL_COLOUR)).isEqualTo(7);
		assertThat(SvgXml.texts(svg)).contains("database floor (plain SQL)", "writers during flat-out purge",
				"inbox, batches of up to 16 deliveri\u2026");
		assertThat(SvgXml.count(svg, "//rect/title[starts-with(., 'inbox / inbox, batches of up to 16 deliveries per transaction:')]"))
			.isEqualTo(1);
	}

	@Test
	void theRepositorysResultsFilesAllDraw() throws Exception {
		try (var files = Files.list(ResultsCsvTests.RESULTS)) {
			for (Path csv : files.filter((f) -> f.toString().endsWith(".csv")).toList()) {
				ResultsCsv.Results results = ResultsCsv.read(csv);
				for (Charts.Chart chart : Charts.draw(results.measurements(), Targets.check(results.measurements()),
						new ChartRun(results.run(), results.command()))) {
					assertThat(SvgXml.parse(chart.svg()).getDocumentElement().getAttribute("width")).as(csv + " " + chart.name())
						.isEqualTo("760");
				}
			}
		}
		List<Charts.Chart> latest = Charts.draw(ResultsCsv.read(ResultsCsvTests.RESULTS.resolve("latest.csv")).measurements(),
				this.targets, RUN);
		assertThat(latest).extracting(Charts.Chart::name).containsExactly("throughput", "latency");
	}

	@Test
	void theChartedRunIsKeptBesideTheDocumentsCharts(@TempDir Path directory) throws Exception {
		Path results = Files.createDirectories(directory.resolve("benchmarks/results"));
		Files.writeString(results.resolve("latest.csv"), "kind,benchmark,figure,unit,median,min,max,runs,note\n");
		Files.writeString(results.resolve("latest.md"), "Run of 2026-11-23T15:00:10\n");
		assertThat(Charts.keepForDocument(directory.resolve("BENCHMARKS.md"), results)).containsExactly(
				directory.resolve("docs/benchmarks/latest.csv"), directory.resolve("docs/benchmarks/latest.md"));
		assertThat(directory.resolve("docs/benchmarks/latest.md")).hasContent("Run of 2026-11-23T15:00:10");
	}

	@Test
	void chartsAreWrittenBesideTheResultsAndBesideTheDocument(@TempDir Path directory) throws Exception {
		List<Charts.Chart> charts = Charts.draw(this.measurements, this.targets, RUN);
		assertThat(Charts.write(directory.resolve("results"), "20261123-150010", charts)).containsExactly(
				directory.resolve("results/20261123-150010-throughput.svg"),
				directory.resolve("results/20261123-150010-latency.svg"));
		assertThat(Charts.writeForDocument(directory.resolve("BENCHMARKS.md"), charts)).containsExactly(
				directory.resolve("docs/benchmarks/throughput.svg"), directory.resolve("docs/benchmarks/latency.svg"));
		assertThat(Files.readString(directory.resolve("docs/benchmarks/latency.svg"))).isEqualTo(charts.get(1).svg());
	}

	@Test
	void theDocumentLinksTheChartsAboveTheTableReplacingEarlierLinks() {
		List<Charts.Chart> charts = Charts.draw(this.measurements, this.targets, RUN);
		String once = Charts.withLinks("Run of ...\n\n| table |\n", charts);
		assertThat(once).isEqualTo("![Throughput against the ceilings](docs/benchmarks/throughput.svg)\n\n"
				+ "![Latency percentiles against the floor](docs/benchmarks/latency.svg)\n\nRun of ...\n\n| table |\n");
		assertThat(Charts.withLinks(once, charts)).isEqualTo(once);
		assertThat(Charts.withLinks(once, charts.subList(1, 2)))
			.isEqualTo("![Latency percentiles against the floor](docs/benchmarks/latency.svg)\n\nRun of ...\n\n| table |\n");
		assertThat(Charts.withLinks(once, List.of())).isEqualTo("Run of ...\n\n| table |\n");
	}

	@Test
	void chartsOnlyRedrawsFromAResultsFileAndLinksThemInTheDocument(@TempDir Path directory) throws Exception {
		Path results = Files.createDirectories(directory.resolve("results"));
		Files.writeString(results.resolve("latest.csv"), CSV);
		Path document = directory.resolve("B.md");
		Files.writeString(document, "# B\n\n<!-- results:start -->\n| old table |\n<!-- results:end -->\n");
		BenchmarkOptions options = BenchmarkOptions.parse("--charts-only", "--results", results.toString(), "--update-doc",
				"--doc", document.toString());
		assertThat(Charts.redraw(options)).isTrue();
		assertThat(results.resolve("latest-throughput.svg")).isRegularFile();
		assertThat(results.resolve("latest-latency.svg")).isRegularFile();
		assertThat(directory.resolve("docs/benchmarks/throughput.svg")).isRegularFile();
		assertThat(Files.readString(document)).isEqualTo("# B\n\n<!-- results:start -->\n"
				+ "![Throughput against the ceilings](docs/benchmarks/throughput.svg)\n\n"
				+ "![Latency percentiles against the floor](docs/benchmarks/latency.svg)\n\n| old table |\n<!-- results:end -->\n");
	}

	@Test
	void chartsOnlyWithoutAResultsFileFailsWithoutWritingAnything(@TempDir Path directory) throws Exception {
		assertThat(Charts.redraw(BenchmarkOptions.parse("--charts-only", directory.resolve("none.csv").toString())))
			.isFalse();
		Path notResults = Files.writeString(directory.resolve("other.csv"), "a,b\n1,2\n");
		assertThat(Charts.redraw(BenchmarkOptions.parse("--charts-only", notResults.toString()))).isFalse();
		try (var files = Files.list(directory)) {
			assertThat(files).containsExactly(notResults);
		}
	}

	private static int bars(Document svg, String colour) throws Exception {
		// legend swatches have no title; bars carry their figure as a title
		return SvgXml.count(svg, "//rect[@fill='" + colour + "' and title]");
	}

	private static List<Element> targetLines(Document svg) throws Exception {
		return SvgXml.nodes(svg, "//g[title]/line[@stroke='" + ThroughputChart.TARGET_COLOUR + "']");
	}

}
