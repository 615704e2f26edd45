package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.spi.ClaimedScope;

/**
 * The settler's retries of outcomes whose write failed: their backoff, and that they are given up
 * past a lease.
 *
 * @since 0.1
 */
class BookkeepingRetriesTests {

	@Test
	void theBackoffDoublesFromFiftyMillisecondsUpToTwoSeconds() {
		assertThat(BookkeepingRetries.bookkeepingDelay(1)).isEqualTo(Duration.ofMillis(50));
		assertThat(BookkeepingRetries.bookkeepingDelay(2)).isEqualTo(Duration.ofMillis(100));
		assertThat(BookkeepingRetries.bookkeepingDelay(6)).isEqualTo(Duration.ofMillis(1600));
		assertThat(BookkeepingRetries.bookkeepingDelay(7)).isEqualTo(Duration.ofSeconds(2));
		assertThat(BookkeepingRetries.bookkeepingDelay(1000)).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void anOutcomeWhoseWriteFailedIsKeptAndTakenAgainOnceItsRetryIsDue() {
		BookkeepingRetries retries = new BookkeepingRetries(new Leases(UnusedStore.create(), Duration.ofSeconds(12)));
		Outcome outcome = outcome();

		retries.roundEnded(failed(outcome));

		assertThat(retries.waiting()).isEqualTo(1);
		assertThat(outcome.retried()).isTrue();
		assertThat(retries.pollMillis(100)).isLessThanOrEqualTo(50);
		List<Outcome> batch = new ArrayList<>();
		Awaitility.await().atMost(Duration.ofSeconds(5)).pollInSameThread().pollInterval(Duration.ofMillis(10)).until(() -> {
			retries.takeDue(batch);
			return !batch.isEmpty();
		});
		assertThat(batch).containsExactly(outcome);
		assertThat(retries.waiting()).isZero();
		assertThat(retries.pollMillis(100)).isEqualTo(100);
	}

	@Test
	void anOutcomeUnrecordedForLongerThanALeaseIsLeftToItsLease() {
		BookkeepingRetries retries = new BookkeepingRetries(new Leases(UnusedStore.create(), Duration.ofSeconds(12)));
		Outcome outcome = outcome();
		outcome.unrecordedSince = System.nanoTime() - Duration.ofSeconds(13).toNanos();

		retries.roundEnded(failed(outcome));

		assertThat(retries.waiting()).isZero();
	}

	private static FailedWrites failed(Outcome outcome) {
		FailedWrites failed = new FailedWrites();
		failed.add(outcome, new IllegalStateException("connection lost"));
		return failed;
	}

	private static Outcome outcome() {
		Instant now = Instant.now();
		ClaimedScope scope = new ClaimedScope(UUID.randomUUID(), now, 1, "relay/0/1", now.plusSeconds(12), List.of());
		return new Outcome(scope, List.of(), now, false);
	}

}
