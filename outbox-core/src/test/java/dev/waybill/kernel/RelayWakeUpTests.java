package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class RelayWakeUpTests {

	@Test
	void aSignalGivenBeforeTheWaitIsKept() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		wakeUp.signal();
		assertThat(wakeUp.await(Duration.ZERO)).isTrue();
	}

	@Test
	void signalsCoalesceIntoOneWakeUp() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		wakeUp.signal();
		wakeUp.signal();
		wakeUp.signal();
		assertThat(wakeUp.await(Duration.ZERO)).isTrue();
		assertThat(wakeUp.await(Duration.ofMillis(20))).isFalse();
	}

	@Test
	void aWaitingThreadWakesOnASignalFromAnother() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				return wakeUp.await(Duration.ofMinutes(1));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		org.awaitility.Awaitility.await().during(Duration.ofMillis(50)).until(() -> !waiter.isDone());
		wakeUp.signal();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void everyWaiterForASignalAfterTheOnesItSawSeesItWithoutConsumingIt() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		long seen = wakeUp.signals();
		assertThat(wakeUp.awaitSignalAfter(seen, Duration.ofMillis(20))).as("nothing given since").isFalse();
		CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> awaitAfter(wakeUp, seen));
		CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> awaitAfter(wakeUp, seen));
		org.awaitility.Awaitility.await().during(Duration.ofMillis(50)).until(() -> !first.isDone() && !second.isDone());

		wakeUp.signal();

		assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(wakeUp.awaitSignalAfter(seen, Duration.ZERO)).as("given before the wait").isTrue();
		assertThat(wakeUp.await(Duration.ZERO)).as("still there for a consuming waiter").isTrue();
	}

	private static boolean awaitAfter(RelayWakeUp wakeUp, long seen) {
		try {
			return wakeUp.awaitSignalAfter(seen, Duration.ofMinutes(1));
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
