package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsCsvTests {

	/** The results files this repository keeps; the test runs in the benchmarks module. */
	// The run BENCHMARKS.md charts, kept beside its charts; other results stay out of the repository.
	static final Path RESULTS = Path.of("../docs/benchmarks");

	@Test
	void whatResultTableWritesIsReadBack() {
		List<Measurement> written = List.of(
				new Measurement("relay", "backlog drained, scopes of 1", "msg/s", List.of(4200.0, 3900.5, 5100.0, 4000.0),
						"100000 msgs, \"default\" relay"),
				new Measurement("latency", "p99 @ 1,000 msg/s", "ms", List.of(60.0, 40.0), ""),
				new Measurement("scale", "claim time, 0 kept", "ms", List.of(3.7), "median of 20"));
		String csv = new ResultTable(written, List.of(Target.atLeast("relay / broker", 0.44, 0.5, ">= 0.50"))).csv();
		List<Measurement> read = ResultsCsv.parse(csv);
		assertThat(read).extracting(Measurement::benchmark).containsExactly("relay", "latency", "scale");
		assertThat(read).extracting(Measurement::figure)
			.containsExactly("backlog drained, scopes of 1", "p99 @ 1,000 msg/s", "claim time, 0 kept");
		assertThat(read).extracting(Measurement::note).containsExactly("100000 msgs, \"default\" relay", "", "median of 20");
		for (int i = 0; i < written.size(); i++) {
			assertThat(read.get(i).median()).isEqualTo(written.get(i).median());
			assertThat(read.get(i).min()).isEqualTo(written.get(i).min());
			assertThat(read.get(i).max()).isEqualTo(written.get(i).max());
			assertThat(read.get(i).runs()).hasSameSizeAs(written.get(i).runs());
			assertThat(read.get(i).unit()).isEqualTo(written.get(i).unit());
		}
	}

	@Test
	void theRepositorysLatestResultsAreRead() throws Exception {
		Path latest = RESULTS.resolve("latest.csv");
		long figures = Files.readAllLines(latest).stream().filter((line) -> line.startsWith("figure,")).count();
		ResultsCsv.Results results = ResultsCsv.read(latest);
		assertThat(results.measurements()).hasSize((int) figures).isNotEmpty();
		assertThat(results.measurements()).allSatisfy((m) -> {
			assertThat(m.min()).isLessThanOrEqualTo(m.median());
			assertThat(m.median()).isLessThanOrEqualTo(m.max());
		});
		assertThat(results.run()).isNotNull();
		assertThat(results.command()).startsWith("./benchmarks/run ");
	}

	@Test
	void everyKeptResultsFileIsRead() throws Exception {
		try (var files = Files.list(RESULTS)) {
			List<Path> csvs = files.filter((f) -> f.toString().endsWith(".csv")).toList();
			assertThat(csvs).isNotEmpty();
			for (Path csv : csvs) {
				assertThat(ResultsCsv.read(csv).measurements()).as(csv.toString()).isNotEmpty();
			}
		}
	}

	@Test
	void theRunIsDatedByTheMarkdownBesideTheCsv(@TempDir Path directory) throws Exception {
		Files.writeString(directory.resolve("latest.csv"), "kind,benchmark,figure,unit,median,min,max,runs,note\n");
		Files.writeString(directory.resolve("latest.md"),
				"Run of 2026-11-23T15:00:10 (779 s): `./benchmarks/run broker --runs 3`  \nmachine\n");
		ResultsCsv.Results results = ResultsCsv.read(directory.resolve("latest.csv"));
		assertThat(results.run()).isEqualTo(LocalDateTime.of(2026, 11, 23, 15, 0, 10));
		assertThat(results.command()).isEqualTo("./benchmarks/run broker --runs 3");
		assertThat(results.measurements()).isEmpty();
	}

	@Test
	void withoutMarkdownTheRunIsDatedByTheFileNameOrNotAtAll(@TempDir Path directory) throws Exception {
		String header = "kind,benchmark,figure,unit,median,min,max,runs,note\r\n";
		Files.writeString(directory.resolve("20261124-002704-scale.csv"), header);
		Files.writeString(directory.resolve("mine.csv"), header);
		assertThat(ResultsCsv.read(directory.resolve("20261124-002704-scale.csv")).run())
			.isEqualTo(LocalDateTime.of(2026, 11, 24, 0, 27, 4));
		ResultsCsv.Results undated = ResultsCsv.read(directory.resolve("mine.csv"));
		assertThat(undated.run()).isNull();
		assertThat(undated.command()).isNull();
	}

	@Test
	void aFileThatIsNotAResultsCsvIsRefusedWithTheLine() {
		assertThatIllegalArgumentException().isThrownBy(() -> ResultsCsv.parse("a,b\n"))
			.withMessageStartingWith("Not a results CSV: the first line must be kind,benchmark,figure,unit,median,min,max,runs,note");
		assertThatIllegalArgumentException().isThrownBy(() -> ResultsCsv.parse(""))
			.withMessageEndingWith("was nothing");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ResultsCsv.parse("kind,benchmark,figure,unit,median,min,max,runs,note\nfigure,x,y,ms,1,2\n"))
			.withMessageStartingWith("Line 2 of the results CSV has 6 cells, not 9");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ResultsCsv.parse("kind,benchmark,figure,unit,median,min,max,runs,note\nfigure,x,y,ms,fast,1,2,3,\n"))
			.withMessageStartingWith("Line 2 of the results CSV has a number that is not one");
	}

	@Test
	void runsKeepTheirCountMedianMinAndMax() {
		assertThat(ResultsCsv.runs(1, 5, 5, 5)).containsExactly(5.0);
		assertThat(ResultsCsv.runs(2, 5, 4, 6)).containsExactly(4.0, 6.0);
		assertThat(Stats.median(ResultsCsv.runs(4, 5, 1, 9))).isEqualTo(5);
		assertThat(ResultsCsv.runs(4, 5, 1, 9)).hasSize(4).startsWith(1.0).endsWith(9.0);
	}

}
