package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.WaybillThreads;

/**
 * The threads of one start of the relay: named for their jobs, counted while alive, joined by job.
 *
 * @since 0.1
 */
class RelayThreadsTests {

	private final CountDownLatch release = new CountDownLatch(1);

	@Test
	void theThreadsAreNamedForTheirJobsTheWorkersInTheirOrder() throws InterruptedException {
		Map<String, Runnable> workers = new LinkedHashMap<>();
		workers.put("waybill-relay-0", this::waitForRelease);
		workers.put("waybill-relay-1", this::waitForRelease);
		workers.put("waybill-relay-direct", this::waitForRelease);

		RelayThreads threads = RelayThreads.start("relay-1", WaybillThreads.platform(), this::waitForRelease,
				this::waitForRelease, this::waitForRelease, workers);

		assertThat(threads.all()).extracting(Thread::getName)
			.containsExactly("waybill-relay-settler", "waybill-relay-leases", "waybill-relay-commits",
					"waybill-relay-0", "waybill-relay-1", "waybill-relay-direct");
		assertThat(threads.live()).isEqualTo(6);
		this.release.countDown();
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		threads.joinWorkers(deadline);
		threads.joinCommits(deadline);
		threads.joinSettlerAndLeases(deadline);
		assertThat(threads.live()).isZero();
	}

	@Test
	void aRelayThatNeverStartedHasNoThreads() {
		assertThat(RelayThreads.NONE.all()).isEmpty();
		assertThat(RelayThreads.NONE.live()).isZero();
		RelayThreads.NONE.joinWorkers(System.nanoTime());
		RelayThreads.NONE.joinCommits(System.nanoTime());
		RelayThreads.NONE.joinSettlerAndLeases(System.nanoTime());
	}

	private void waitForRelease() {
		try {
			this.release.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
