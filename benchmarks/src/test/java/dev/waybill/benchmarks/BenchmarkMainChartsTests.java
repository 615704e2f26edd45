package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkMainChartsTests {

	private static final LocalDateTime STARTED = LocalDateTime.of(2026, 11, 25, 16, 31, 27);

	@Test
	void aRunWritesItsChartsBesideItsResultsAndLinksThemAboveTheTable(@TempDir Path directory) throws Exception {
		Path document = Files.writeString(directory.resolve("B.md"),
				"# B\n\n<!-- results:start -->\nold\n<!-- results:end -->\n");
		BenchmarkOptions options = BenchmarkOptions.parse("broker", "latency", "--quick", "--results",
				directory.resolve("results").toString(), "--update-doc", "--doc", document.toString());
		List<Measurement> measurements = List.of(
				new Measurement(BrokerCeiling.NAME, BrokerCeiling.FIGURE, "msg/s", List.of(4000.0, 4600.0), ""),
				new Measurement(Latency.NAME, Latency.figure("p99", 1_000), "ms", List.of(100.0, 150.0), ""),
				new Measurement(Latency.NAME, Latency.figure(Latency.FLOOR + "p99", 1_000), "ms", List.of(150.0, 220.0), ""));
		ResultTable table = new ResultTable(measurements, Targets.check(measurements));
		List<String> failed = new ArrayList<>();

		BenchmarkMain.writeResults(options, table, "Run of ...\n\n" + table.markdown(), STARTED, failed);

		Path results = directory.resolve("results");
		String latency = Files.readString(results.resolve("20261125-163127-latency.svg"));
		assertThat(SvgXml.texts(SvgXml.parse(latency))).contains("Waybill latency against the floor, run of 2026-11-25 16:31",
				"./benchmarks/run broker latency --quick --runs 2   \u00b7   bar: median of 2 runs, whisker: min to max");
		assertThat(results.resolve("20261125-163127-throughput.svg")).isRegularFile();
		assertThat(directory.resolve("docs/benchmarks/latency.svg")).hasContent(latency);
		assertThat(Files.readString(document)).startsWith("# B\n\n<!-- results:start -->\n"
				+ "![Throughput against the ceilings](docs/benchmarks/throughput.svg)\n\n"
				+ "![Latency percentiles against the floor](docs/benchmarks/latency.svg)\n\nRun of ...\n\n| benchmark |")
			.endsWith("<!-- results:end -->\n");
		assertThat(failed).isEmpty();
	}

	@Test
	void aRunWithoutChartFiguresWritesTheTableAlone(@TempDir Path directory) throws Exception {
		Path document = Files.writeString(directory.resolve("B.md"),
				"<!-- results:start -->\n![Latency percentiles against the floor](docs/benchmarks/latency.svg)\n\nold\n<!-- results:end -->\n");
		BenchmarkOptions options = BenchmarkOptions.parse("scale", "--results", directory.resolve("results").toString(),
				"--update-doc", "--doc", document.toString());
		List<Measurement> measurements = List.of(
				new Measurement(TableScale.NAME, TableScale.claimFigure(0), "ms", List.of(3.0), ""));
		ResultTable table = new ResultTable(measurements, Targets.check(measurements));

		BenchmarkMain.writeResults(options, table, table.markdown(), STARTED, new ArrayList<>());

		try (var files = Files.list(directory.resolve("results"))) {
			assertThat(files.map((f) -> f.getFileName().toString())).containsExactlyInAnyOrder("20261125-163127.md",
					"20261125-163127.csv", "latest.md", "latest.csv");
		}
		assertThat(Files.readString(document)).isEqualTo("<!-- results:start -->\n" + table.markdown() + "<!-- results:end -->\n");
	}

}
