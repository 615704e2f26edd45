package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ChartScaleTests {

	@Test
	void aLinearScaleStartsAtZeroAndEndsOnARoundTick() {
		ChartScale scale = ChartScale.linear(11_599, 100, 600);
		assertThat(scale.ticks()).containsExactly(0.0, 2_500.0, 5_000.0, 7_500.0, 10_000.0, 12_500.0);
		assertThat(scale.pixel(0)).isEqualTo(100);
		assertThat(scale.pixel(6_250)).isCloseTo(350, within(1e-9));
		assertThat(scale.pixel(12_500)).isEqualTo(600);
	}

	@Test
	void linearStepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen() {
		assertThat(ChartScale.niceStep(0.8)).isEqualTo(1);
		assertThat(ChartScale.niceStep(1_400)).isEqualTo(2_000);
		assertThat(ChartScale.niceStep(2_320)).isEqualTo(2_500);
		assertThat(ChartScale.niceStep(3_000)).isEqualTo(5_000);
		assertThat(ChartScale.niceStep(6_000)).isEqualTo(10_000);
		assertThat(ChartScale.linear(8_000, 0, 1).ticks()).endsWith(8_000.0);
	}

	@Test
	void aLogScaleCoversWholeDecadesAndMapsEachDecadeToAnEqualDistance() {
		ChartScale scale = ChartScale.log(0.697, 448, 400, 100);
		assertThat(scale.ticks()).containsExactly(0.1, 1.0, 10.0, 100.0, 1_000.0);
		assertThat(scale.pixel(0.1)).isEqualTo(400);
		assertThat(scale.pixel(1)).isCloseTo(325, within(1e-9));
		assertThat(scale.pixel(10)).isCloseTo(250, within(1e-9));
		assertThat(scale.pixel(100)).isCloseTo(175, within(1e-9));
		assertThat(scale.pixel(1_000)).isCloseTo(100, within(1e-9));
		// 2 ms sits log10(2) = 0.301 of a decade above 1 ms
		assertThat(scale.pixel(2)).isCloseTo(325 - 75 * Math.log10(2), within(1e-9));
	}

	@Test
	void valuesOutsideAScaleAreClampedToItsEnds() {
		ChartScale log = ChartScale.log(1, 100, 400, 100);
		assertThat(log.pixel(0)).isEqualTo(400);
		assertThat(log.pixel(0.01)).isEqualTo(400);
		assertThat(log.pixel(1e6)).isEqualTo(100);
		assertThat(ChartScale.linear(10, 0, 100).pixel(-5)).isEqualTo(0);
	}

	@Test
	void aLogScaleOverOneExactDecadeStillHasTwoTicks() {
		assertThat(ChartScale.log(10, 10, 1, 0).ticks()).containsExactly(10.0, 100.0);
	}

}
