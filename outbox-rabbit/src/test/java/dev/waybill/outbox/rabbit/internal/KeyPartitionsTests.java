package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * {@link KeyPartitions}: a lane survives what its handler throws, and batches only fast deliveries.
 */
class KeyPartitionsTests {

	@Test
	void aLaneGoesOnAfterItsHandlerThrewAnError() throws InterruptedException {
		List<String> handled = new CopyOnWriteArrayList<>();
		CountDownLatch second = new CountDownLatch(1);
		KeyPartitions<String> lanes = new KeyPartitions<>(1, 1, 0, Thread::new, (batch) -> {
			handled.addAll(batch);
			if (batch.contains("first")) {
				throw new OutOfMemoryError("thrown by a handler");
			}
			second.countDown();
		});
		try {
			lanes.submit("key", "first");
			lanes.submit("key", "second");

			// The lane's thread ended with the Error: "second" waited, unacknowledged, for good.
			assertThat(second.await(10, TimeUnit.SECONDS)).as("the lane handled the next delivery").isTrue();
			assertThat(handled).containsExactly("first", "second");
			assertThat(lanes.awaitIdle(System.nanoTime() + TimeUnit.SECONDS.toNanos(10))).isTrue();
		}
		finally {
			lanes.shutdown();
		}
	}

	@Test
	void aLaneGoesOnAfterItsHandlerLeftTheThreadInterrupted() throws InterruptedException {
		List<String> handled = new CopyOnWriteArrayList<>();
		CountDownLatch third = new CountDownLatch(1);
		KeyPartitions<String> lanes = new KeyPartitions<>(1, 1, 0, Thread::new, (batch) -> {
			handled.addAll(batch);
			if (batch.contains("interrupts")) {
				Thread.currentThread().interrupt(); // as a handler that restores the flag it caught
			}
			if (batch.contains("third")) {
				third.countDown();
			}
		});
		try {
			lanes.submit("key", "interrupts");
			Thread.sleep(200); // the lane waits again, interrupted
			lanes.submit("key", "second");
			lanes.submit("key", "third");

			assertThat(third.await(10, TimeUnit.SECONDS)).as("the lane handled the later deliveries").isTrue();
			assertThat(handled).containsExactly("interrupts", "second", "third");
		}
		finally {
			lanes.shutdown();
		}
	}

	@Test
	void aLaneTakesOneDeliveryAtATimeWhileItsHandlersAreSlow() throws InterruptedException {
		// Before, a lane took up to the batch size: a stop waited for the whole batch of slow handlers.
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		CountDownLatch submitted = new CountDownLatch(1);
		KeyPartitions<String> lanes = new KeyPartitions<>(1, 4, 0, Thread::new, (batch) -> {
			sizes.add(batch.size());
			if (batch.contains("4")) {
				// The last slow one holds the lane until the fast ones wait behind it. The wait is
				// its own (slow anyway), not the first fast one's: a fast handler that waited for
				// the test thread was timed slow whenever that thread was late by 50 ms.
				await(submitted);
			}
			if (!batch.get(0).startsWith("fast")) {
				sleep(KeyPartitions.SLOW_DELIVERY.toMillis() * batch.size() + 10);
			}
		});
		try {
			lanes.submit("key", "slow");
			assertThat(lanes.awaitIdle(System.nanoTime() + TimeUnit.SECONDS.toNanos(10))).isTrue();
			for (int i = 0; i < 5; i++) {
				lanes.submit("key", String.valueOf(i));
			}
			for (int i = 0; i < 4; i++) {
				lanes.submit("key", "fast-" + i);
			}
			submitted.countDown();
			assertThat(lanes.awaitIdle(System.nanoTime() + TimeUnit.SECONDS.toNanos(10))).isTrue();
			assertThat(sizes.subList(0, 6)).as("batch sizes").containsExactly(1, 1, 1, 1, 1, 1);
			// the first alone, and fast: the lane batches the others again
			assertThat(sizes.subList(6, sizes.size())).as("batch sizes after the slow ones").containsExactly(1, 3);
		}
		finally {
			lanes.shutdown();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
