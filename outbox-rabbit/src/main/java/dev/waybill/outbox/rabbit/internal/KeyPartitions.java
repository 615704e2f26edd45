package dev.waybill.outbox.rabbit.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The workers of a consumer that partitions its deliveries by ordering key (issue 17): one
 * single-threaded lane per unit of concurrency, a key always on the lane of its hash, so the
 * deliveries of one key run one at a time in the order they were submitted, different keys in
 * parallel. Deliveries without a key go to the lanes in turn.
 */
final class KeyPartitions {

	private final ExecutorService[] lanes;

	private final AtomicInteger nextUnkeyed = new AtomicInteger();

	/** Submitted and not yet finished, over every lane. */
	private final AtomicInteger outstanding = new AtomicInteger();

	KeyPartitions(int count, ThreadFactory threads) {
		this.lanes = new ExecutorService[count];
		for (int i = 0; i < count; i++) {
			this.lanes[i] = Executors.newSingleThreadExecutor(threads);
		}
	}

	/** The lane of a key: stable for the life of the process and the same lane count. */
	static int lane(@Nullable String key, int lanes, int unkeyed) {
		return (key != null) ? Math.floorMod(key.hashCode(), lanes) : Math.floorMod(unkeyed, lanes);
	}

	void submit(@Nullable String key, Runnable task) {
		int lane = lane(key, this.lanes.length, (key != null) ? 0 : this.nextUnkeyed.getAndIncrement());
		this.outstanding.incrementAndGet();
		this.lanes[lane].execute(() -> {
			try {
				task.run();
			}
			finally {
				this.outstanding.decrementAndGet();
			}
		});
	}

	/**
	 * Waits until every submitted task finished.
	 * @return whether they did before the deadline
	 */
	boolean awaitIdle(long deadlineNanos) throws InterruptedException {
		while (this.outstanding.get() > 0) {
			if (System.nanoTime() - deadlineNanos >= 0) {
				return false;
			}
			TimeUnit.MILLISECONDS.sleep(5);
		}
		return true;
	}

	void shutdown() {
		for (ExecutorService lane : this.lanes) {
			lane.shutdown();
		}
	}

}
