package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.internal.OutboxBacklog;

/**
 * The pacing without a poll: its poll interval is longer than the test, so only signals, due times
 * and stopping end a wait.
 *
 * @since 0.1
 */
class RelayPacingTests {

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final RelayWakeUp wakeUp = new RelayWakeUp();

	private final RelayLanes lanes = new RelayLanes("relay", "default", UnusedStore.create(),
			new ClaimFailureLog("relay", Duration.ofMillis(50)), Duration.ofMillis(50), this.wakeUp);

	private final RelayPacing pacing = new RelayPacing(UnusedStore.create(), this.wakeUp, Duration.ofDays(36500),
			new OutboxBacklog(), this.running::get, this.lanes);

	@Test
	void thePrimaryWorkerClaimsOnceAnotherStoresPollFallsDueWithoutASignal() throws InterruptedException {
		this.lanes.add("tenant", UnusedStore.create(), null);
		assertThat(this.wakeUp.await(Duration.ZERO)).as("an added store wakes a worker").isTrue();
		assertThat(this.lanes.takeDue(System.nanoTime())).as("due at once").isNotNull();
		long started = System.nanoTime();
		assertThat(this.pacing.awaitWork(true)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
		assertThat(this.lanes.takeDue(System.nanoTime())).as("its poll").isNotNull();
	}

	@Test
	void thePrimaryWorkerClaimsOnceANotedScopeFallsDueWithoutASignal() throws InterruptedException {
		this.pacing.dueIn(Duration.ofMillis(50));
		long started = System.nanoTime();
		assertThat(this.pacing.awaitWork(true)).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
	}

	@Test
	void aSignalWakesAnyWorker() throws InterruptedException {
		this.wakeUp.signal();
		assertThat(this.pacing.awaitWork(false)).isTrue();
	}

	@Test
	void aStoppedRelayDoesNotWaitNorClaim() throws InterruptedException {
		this.running.set(false);
		long started = System.nanoTime();
		this.pacing.pause(Duration.ofHours(1));
		assertThat(this.pacing.awaitWork(true)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void aPauseEndsSoonAfterTheRelayStops() throws InterruptedException {
		Thread pausing = new Thread(() -> {
			try {
				this.pacing.pause(Duration.ofHours(1));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		pausing.start();
		Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> pausing.getState() == Thread.State.TIMED_WAITING);
		this.running.set(false);
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !pausing.isAlive());
		pausing.join();
	}

}
