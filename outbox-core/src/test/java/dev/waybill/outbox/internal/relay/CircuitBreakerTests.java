package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.internal.relay.CircuitBreaker.Permit;
import dev.waybill.outbox.relay.CircuitState;

class CircuitBreakerTests {

	private final MutableClock clock = new MutableClock();

	private final List<CircuitState> changes = new ArrayList<>();

	private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(10), this.clock, this.changes::add);

	@Test
	void opensAfterTheThresholdOfConsecutiveFailures() {
		this.breaker.recordFailure();
		this.breaker.recordFailure();
		assertThat(this.breaker.acquire()).isEqualTo(Permit.CLAIM);
		this.breaker.recordFailure();
		assertThat(this.breaker.state()).isEqualTo(CircuitState.OPEN);
		assertThat(this.breaker.acquire()).isEqualTo(Permit.WAIT);
	}

	@Test
	void aSuccessResetsTheCount() {
		this.breaker.recordFailure();
		this.breaker.recordFailure();
		this.breaker.recordSuccess();
		this.breaker.recordFailure();
		this.breaker.recordFailure();
		assertThat(this.breaker.state()).isEqualTo(CircuitState.CLOSED);
		assertThat(this.changes).isEmpty();
	}

	@Test
	void afterTheCoolDownExactlyOneCallerProbesAndSuccessCloses() {
		open();
		this.clock.advance(Duration.ofSeconds(9));
		assertThat(this.breaker.acquire()).isEqualTo(Permit.WAIT);
		assertThat(this.breaker.remainingCoolDown()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.breaker.acquire()).isEqualTo(Permit.PROBE);
		assertThat(this.breaker.acquire()).as("a second caller waits while one probes").isEqualTo(Permit.WAIT);
		this.breaker.recordSuccess();
		assertThat(this.breaker.acquire()).isEqualTo(Permit.CLAIM);
		assertThat(this.changes).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.CLOSED);
	}

	@Test
	void aFailedProbeOpensForAnotherCoolDown() {
		open();
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.breaker.acquire()).isEqualTo(Permit.PROBE);
		this.breaker.recordFailure();
		assertThat(this.breaker.state()).isEqualTo(CircuitState.OPEN);
		assertThat(this.breaker.acquire()).isEqualTo(Permit.WAIT);
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.breaker.acquire()).isEqualTo(Permit.PROBE);
		assertThat(this.changes).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.OPEN, CircuitState.HALF_OPEN);
	}

	@Test
	void failuresWhileOpenAreNotReportedAgain() {
		open();
		this.breaker.recordFailure();
		this.breaker.recordFailure();
		assertThat(this.changes).containsExactly(CircuitState.OPEN);
	}

	@Test
	void aConfirmTheBrokerSentBeforeTheFailuresNeitherClosesTheBreakerNorResetsTheCount() {
		Instant confirmedBeforeTheCut = this.clock.instant();
		this.clock.advance(Duration.ofMillis(5));
		open();
		this.breaker.recordSuccess(confirmedBeforeTheCut);
		assertThat(this.breaker.state()).isEqualTo(CircuitState.OPEN);

		this.clock.advance(Duration.ofMillis(5));
		this.breaker.recordSuccess(this.clock.instant());
		assertThat(this.breaker.state()).isEqualTo(CircuitState.CLOSED);
		assertThat(this.changes).containsExactly(CircuitState.OPEN, CircuitState.CLOSED);
	}

	private void open() {
		for (int i = 0; i < 3; i++) {
			this.breaker.recordFailure();
		}
	}

	static final class MutableClock extends Clock {

		private Instant now = Instant.parse("2026-01-01T00:00:00Z");

		void advance(Duration duration) {
			this.now = this.now.plus(duration);
		}

		@Override
		public ZoneOffset getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

}
