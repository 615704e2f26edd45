package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class BenchmarkOptionsTests {

	@Test
	void noArgumentsRunsEverythingFullSizeThreeTimes() {
		BenchmarkOptions options = BenchmarkOptions.parse();
		assertThat(options.benchmarks()).isEqualTo(BenchmarkOptions.NAMES);
		assertThat(options.quick()).isFalse();
		assertThat(options.runs()).isEqualTo(3);
		assertThat(options.updateDocument()).isFalse();
		assertThat(options.resultsDirectory()).isEqualTo(Path.of("benchmarks", "results"));
		assertThat(options.document()).isEqualTo(Path.of("BENCHMARKS.md"));
	}

	@Test
	void allIsEverything() {
		assertThat(BenchmarkOptions.parse("all", "--quick").benchmarks()).isEqualTo(BenchmarkOptions.NAMES);
	}

	@Test
	void aSubsetRunsInTheCanonicalOrderOnce() {
		BenchmarkOptions options = BenchmarkOptions.parse("scale", "broker", "Relay", "broker");
		assertThat(options.benchmarks()).containsExactly("broker", "relay", "scale");
		assertThat(options.selects("relay")).isTrue();
		assertThat(options.selects("inbox")).isFalse();
	}

	@Test
	void quickRunsTwiceUnlessTold() {
		assertThat(BenchmarkOptions.parse("--quick").runs()).isEqualTo(2);
		assertThat(BenchmarkOptions.parse("--quick", "--runs", "5").runs()).isEqualTo(5);
	}

	@Test
	void outputOptionsAreTaken() {
		BenchmarkOptions options = BenchmarkOptions.parse("--update-doc", "--results", "/tmp/r", "--doc", "docs/B.md");
		assertThat(options.updateDocument()).isTrue();
		assertThat(options.resultsDirectory()).isEqualTo(Path.of("/tmp/r"));
		assertThat(options.document()).isEqualTo(Path.of("docs/B.md"));
	}

	@Test
	void anUnknownNameOrOptionIsRefusedWithTheChoices() {
		for (String bad : List.of("relays", "--fast")) {
			assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse(bad))
				.withMessageStartingWith("Unknown argument '" + bad + "'. usage: run [all|broker|relay|writepath|latency|inbox|retention|scale|ordering|tracing|wal|pooled|standby|stores ...]");
		}
	}

	@Test
	void runsMustBeAWholeNumberOfAtLeastOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--runs", "0"))
			.withMessage("--runs must be a whole number of at least 1, was '0'");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--runs", "three"))
			.withMessage("--runs must be a whole number of at least 1, was 'three'");
	}

	@Test
	void anOptionWithoutItsValueIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--runs"))
			.withMessageStartingWith("--runs needs a value.");
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--results", "--quick"))
			.withMessageStartingWith("--results needs a value.");
	}

	@Test
	void chartsOnlyRedrawsTheLatestResultsUnlessACsvIsNamed() {
		BenchmarkOptions latest = BenchmarkOptions.parse("--charts-only", "--results", "/tmp/r");
		assertThat(latest.chartsOnly()).isTrue();
		assertThat(latest.chartsSource()).isEqualTo(Path.of("/tmp/r/latest.csv"));
		BenchmarkOptions named = BenchmarkOptions.parse("--charts-only", "benchmarks/results/20261123-150010.csv",
				"--update-doc");
		assertThat(named.chartsSource()).isEqualTo(Path.of("benchmarks/results/20261123-150010.csv"));
		assertThat(named.updateDocument()).isTrue();
		assertThat(BenchmarkOptions.parse("relay").chartsOnly()).isFalse();
	}

	@Test
	void chartsOnlyRunsNoBenchmark() {
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkOptions.parse("--charts-only", "relay"))
			.withMessageStartingWith("--charts-only redraws the charts of a results file and runs no benchmark; drop relay.");
	}

}
