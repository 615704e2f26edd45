package dev.waybill.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.RetryPolicy.Strategy;

class RetryPolicyTests {

	private static final RetryPolicy EXPONENTIAL = new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofSeconds(1), 2,
			Duration.ofMinutes(5), 10, 0.2);

	@Test
	void exponentialWaitsIntervalTimesRateToTheNCappedAtMaxDelay() {
		assertThat(EXPONENTIAL.baseDelay(0)).isEqualTo(Duration.ofSeconds(1));
		assertThat(EXPONENTIAL.baseDelay(1)).isEqualTo(Duration.ofSeconds(2));
		assertThat(EXPONENTIAL.baseDelay(3)).isEqualTo(Duration.ofSeconds(8));
		assertThat(EXPONENTIAL.baseDelay(8)).isEqualTo(Duration.ofSeconds(256));
		assertThat(EXPONENTIAL.baseDelay(9)).isEqualTo(Duration.ofMinutes(5));
		assertThat(EXPONENTIAL.baseDelay(1000)).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void theSeedsExampleFiveSecondsRateTwoRetryThreeWaitsFortySeconds() {
		RetryPolicy policy = new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofSeconds(5), 2, Duration.ofHours(1), 10, 0);
		assertThat(policy.delay(3)).isEqualTo(Duration.ofSeconds(40));
	}

	@Test
	void linearAndFixedGrowAsNamed() {
		RetryPolicy linear = new RetryPolicy(Strategy.LINEAR, Duration.ofSeconds(2), 2, Duration.ofSeconds(7), 10, 0);
		assertThat(linear.baseDelay(0)).isEqualTo(Duration.ofSeconds(2));
		assertThat(linear.baseDelay(2)).isEqualTo(Duration.ofSeconds(6));
		assertThat(linear.baseDelay(3)).isEqualTo(Duration.ofSeconds(7));
		RetryPolicy fixed = new RetryPolicy(Strategy.FIXED, Duration.ofSeconds(3), 2, Duration.ofSeconds(7), 10, 0);
		assertThat(fixed.baseDelay(0)).isEqualTo(fixed.baseDelay(50)).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void jitterSpreadsTheWaitOverPlusOrMinusItsFractionButNeverPastMaxDelay() {
		assertThat(EXPONENTIAL.delay(2, () -> 0.0)).isEqualTo(Duration.ofMillis(3200));
		assertThat(EXPONENTIAL.delay(2, () -> 0.5)).isEqualTo(Duration.ofMillis(4000));
		assertThat(EXPONENTIAL.delay(2, () -> 0.999999)).isBetween(Duration.ofMillis(4799), Duration.ofMillis(4800));
		assertThat(EXPONENTIAL.delay(20, () -> 0.999999)).isEqualTo(Duration.ofMinutes(5));
		for (int i = 0; i < 1000; i++) {
			assertThat(EXPONENTIAL.delay(1)).isBetween(Duration.ofMillis(1600), Duration.ofMillis(2400));
		}
	}

	@Test
	void isExhaustedAtMaxAttempts() {
		assertThat(EXPONENTIAL.exhausted(9)).isFalse();
		assertThat(EXPONENTIAL.exhausted(10)).isTrue();
	}

	@Test
	void rejectsImpossibleSettingsNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(Strategy.FIXED, Duration.ZERO, 2, Duration.ofSeconds(1), 1, 0))
			.withMessageContaining("interval");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(Strategy.FIXED, Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1), 1, 0))
			.withMessageContaining("rate must be at least 1");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(Strategy.FIXED, Duration.ofSeconds(2), 2, Duration.ofSeconds(1), 1, 0))
			.withMessageContaining("maxDelay");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(Strategy.FIXED, Duration.ofSeconds(1), 2, Duration.ofSeconds(1), 0, 0))
			.withMessageContaining("maxAttempts");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryPolicy(Strategy.FIXED, Duration.ofSeconds(1), 2, Duration.ofSeconds(1), 1, 1.5))
			.withMessageContaining("jitter");
	}

}
