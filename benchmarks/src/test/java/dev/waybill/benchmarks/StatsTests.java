package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

class StatsTests {

	@Test
	void medianOfAnOddCountIsTheMiddleValueWhateverTheOrder() {
		assertThat(Stats.median(List.of(9.0, 1.0, 5.0))).isEqualTo(5.0);
	}

	@Test
	void medianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
		assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 10.0))).isEqualTo(3.5);
	}

	@Test
	void minAndMaxAreTheExtremes() {
		List<Double> values = List.of(7.0, -2.0, 3.5);
		assertThat(Stats.min(values)).isEqualTo(-2.0);
		assertThat(Stats.max(values)).isEqualTo(7.0);
	}

	@Test
	void noValuesIsAnError() {
		assertThatIllegalArgumentException().isThrownBy(() -> Stats.median(List.of())).withMessage("no values");
	}

	@Test
	void percentilesAreNearestRankOnSortedSamples() {
		long[] samples = LongStream.rangeClosed(1, 100).toArray();
		assertThat(Stats.percentile(samples, 50)).isEqualTo(50);
		assertThat(Stats.percentile(samples, 95)).isEqualTo(95);
		assertThat(Stats.percentile(samples, 99)).isEqualTo(99);
		assertThat(Stats.percentile(samples, 100)).isEqualTo(100);
		assertThat(Stats.percentile(samples, 0.1)).isEqualTo(1);
	}

	@Test
	void aPercentileOfFewSamplesRoundsUpToASample() {
		long[] samples = { 10, 20, 30 };
		assertThat(Stats.percentile(samples, 50)).isEqualTo(20);
		assertThat(Stats.percentile(samples, 99)).isEqualTo(30);
		assertThat(Stats.percentile(new long[] { 42 }, 99)).isEqualTo(42);
	}

	@Test
	void aPercentileNeedsSamplesAndAPercentInRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> Stats.percentile(new long[0], 50))
			.withMessage("percentile of no samples");
		assertThatIllegalArgumentException().isThrownBy(() -> Stats.percentile(new long[] { 1 }, 0))
			.withMessage("percent must be in (0, 100], was 0.0");
		assertThatIllegalArgumentException().isThrownBy(() -> Stats.percentile(new long[] { 1 }, 101))
			.withMessageContaining("was 101.0");
	}

}
