package dev.waybill.retention.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link RetentionPacer}, with batch durations given rather than measured.
 */
class RetentionPacerTests {

	private static final Duration FAST = Duration.ofMillis(10);

	@Test
	void pausesForWhatIsLeftOfTheBatchsShareOfTheBudget() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));

		// 1,000 rows at 10,000 rows/s have 100 ms; the batch took 10 of them.
		assertThat(pacer.pauseAfter(1_000, FAST)).isEqualTo(Duration.ofMillis(90));
	}

	@Test
	void aBatchThatUsedUpItsShareIsNotPausedAfter() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));

		assertThat(pacer.pauseAfter(1_000, Duration.ofMillis(150))).isZero();
	}

	@Test
	void pacedBatchesHoldTheMaximumRate() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		Duration elapsed = Duration.ZERO;
		for (int i = 0; i < 100; i++) {
			elapsed = elapsed.plus(FAST).plus(pacer.pauseAfter(1_000, FAST));
		}

		assertThat(100_000 / (elapsed.toNanos() / 1e9)).isEqualTo(10_000, within(1.0));
	}

	@Test
	void batchesThatStayTwiceAsSlowPerRowAsTheRecentBestHalveTheBudget() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, FAST);

		pacer.pauseAfter(1_000, Duration.ofMillis(40));
		pacer.pauseAfter(1_000, Duration.ofMillis(40));

		assertThat(pacer.rate()).isEqualTo(5_000);
	}

	@Test
	void oneSlowBatchAmongFastOnesDoesNotBackOff() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, FAST);

		pacer.pauseAfter(1_000, Duration.ofMillis(30));
		pacer.pauseAfter(1_000, FAST);

		assertThat(pacer.rate()).isEqualTo(10_000);
	}

	@Test
	void batchesWithinTwiceTheRecentBestKeepTheBudgetAtTheMaximum() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, FAST);

		for (int i = 0; i < 10; i++) {
			pacer.pauseAfter(1_000, Duration.ofMillis(19));
		}

		assertThat(pacer.rate()).isEqualTo(10_000);
	}

	@Test
	void theSlownessIsPerRowSoASmallerBatchIsNotSlow() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, FAST);

		for (int i = 0; i < 10; i++) {
			pacer.pauseAfter(100, Duration.ofMillis(2));
		}

		assertThat(pacer.rate()).isEqualTo(10_000);
	}

	@Test
	void slowBatchesBackOffNoFurtherThanTheMinimumRate() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 2_000));
		pacer.pauseAfter(1_000, FAST);
		for (int i = 0; i < 5; i++) {
			pacer.pauseAfter(1_000, Duration.ofMillis(100));
		}

		assertThat(pacer.rate()).isEqualTo(2_000);
		// The budget now gives 1,000 rows half a second.
		assertThat(pacer.pauseAfter(1_000, Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(400));
	}

	@Test
	void fastBatchesSpeedUpAgainGraduallyToTheMaximumRate() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, FAST);
		for (int i = 0; i < 5; i++) {
			pacer.pauseAfter(1_000, Duration.ofMillis(100));
		}
		assertThat(pacer.rate()).isEqualTo(1_000);

		List<Double> rates = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			pacer.pauseAfter(1_000, FAST);
			rates.add(pacer.rate());
		}

		assertThat(rates).isSorted();
		assertThat(rates.get(9)).isLessThan(5_000);
		assertThat(rates.get(39)).isEqualTo(10_000);
	}

	@Test
	void aLastingSlowdownBacksOffFirstThenBecomesTheNormal() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		pacer.pauseAfter(1_000, Duration.ofMillis(5));
		// Every batch now takes 30 ms (say, a write load started): slow against 5 ms while that is
		// the lower quartile of the recent batches.
		for (int i = 0; i < 8; i++) {
			pacer.pauseAfter(1_000, Duration.ofMillis(30));
		}
		assertThat(pacer.rate()).isEqualTo(1_000);

		// Once 30 ms fills three quarters of the window, it is the best, and the budget grows back.
		for (int i = 0; i < 40; i++) {
			pacer.pauseAfter(1_000, Duration.ofMillis(30));
		}
		assertThat(pacer.rate()).isEqualTo(10_000);
	}

	@Test
	void occasionalLuckyBatchesDoNotMakeOrdinaryOnesLookSlow() {
		RetentionPacer pacer = new RetentionPacer(new RetentionPacing(true, 10_000, 1_000));
		// Mostly 10 ms, every sixteenth pair of batches 4 ms: against the minimum (4 ms) every
		// ordinary batch would be slow; against the lower quartile (10 ms) none is.
		for (int i = 0; i < 200; i++) {
			pacer.pauseAfter(1_000, (i % 16 < 2) ? Duration.ofMillis(4) : FAST);
		}

		assertThat(pacer.rate()).isEqualTo(10_000);
	}

	@Test
	void unpacedBatchesRunBackToBack() {
		RetentionPacer pacer = new RetentionPacer(RetentionPacing.OFF);

		assertThat(pacer.pauseAfter(1_000, FAST)).isZero();
		assertThat(pacer.pauseAfter(1_000, Duration.ofMillis(100))).isZero();
	}

	@Test
	void aBatchThatPurgedNothingIsNotPausedAfter() {
		RetentionPacer pacer = new RetentionPacer(RetentionPacing.defaults());

		assertThat(pacer.pauseAfter(0, FAST)).isZero();
	}

	@Test
	void ratesAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RetentionPacing(true, 100, 0))
			.withMessageContaining("minRate");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetentionPacing(true, 100, 200))
			.withMessageContaining("maxRate");
	}

}
