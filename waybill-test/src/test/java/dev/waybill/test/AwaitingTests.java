package dev.waybill.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class AwaitingTests {

	private final Awaiting awaiting = new Awaiting(Duration.ofMillis(300), Duration.ofMillis(10), () -> "the report");

	@Test
	void returnsWhatTheProbeFound() {
		AtomicInteger polls = new AtomicInteger();
		String found = this.awaiting.await("the third poll",
				() -> (polls.incrementAndGet() >= 3) ? Optional.of("found") : Optional.empty());
		assertThat(found).isEqualTo("found");
		assertThat(polls).hasValue(3);
	}

	@Test
	void failsWithTheExpectationAndTheReport() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.awaiting.within(Duration.ofMillis(50)).await("nothing", Optional::empty))
			.withMessage("Expected nothing within PT0.05S, but it did not happen.\nthe report");
	}

	@Test
	void steadyConditionHoldsAtTwoPollsInARow() {
		AtomicInteger polls = new AtomicInteger();
		// true, false, true, true: only the last two in a row satisfy the wait.
		boolean[] answers = { true, false, true, true };
		this.awaiting.awaitSteadily("steady", () -> answers[Math.min(polls.getAndIncrement(), answers.length - 1)]);
		assertThat(polls).hasValue(4);
	}

}
