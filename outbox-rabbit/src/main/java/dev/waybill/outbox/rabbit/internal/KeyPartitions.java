package dev.waybill.outbox.rabbit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The workers of a consumer: one thread per lane, each taking the deliveries submitted to it in
 * order, in batches. When partitioned by ordering key there is a lane per unit of
 * concurrency and a key always goes to the lane of its hash, so the deliveries of one key are
 * handled one batch at a time in the order they were submitted, different keys in parallel;
 * deliveries without a key go to the lanes in turn.
 * <p>
 * A lane hands over what it holds at once, up to the maximum batch size; only when it found more
 * than one delivery waiting, and fewer than the maximum, does it wait up to the linger for more.
 * So a lone delivery on an idle lane is handled without delay.
 * <p>
 * Batches are for fast handlers: one transaction saves a commit per delivery, which matters only
 * when the handlers take about as long. After a batch that took {@link #SLOW_DELIVERY} or more a
 * delivery, a lane takes one delivery at a time, until one is handled faster. So slow handlers do
 * not hold a batch's transaction and its locks open, a handler failing in a batch rarely makes a
 * slow one run again, and a stop (checked before each batch) waits for one slow delivery, not for
 * a batch of them: except the lane's first batch, and the first after its handlers became slow.
 *
 * @param <T> what is submitted
 * @since 0.1
 */
final class KeyPartitions<T> {

	private static final Log logger = LogFactory.getLog(KeyPartitions.class);

	/** A delivery handled slower than this, on average over its batch, makes its lane take one at a time. */
	static final java.time.Duration SLOW_DELIVERY = java.time.Duration.ofMillis(50);

	private final List<Lane> lanes = new ArrayList<>();

	private final int maxBatch;

	private final long lingerNanos;

	private final Consumer<List<T>> handler;

	private final AtomicInteger nextUnkeyed = new AtomicInteger();

	/** Submitted and not yet finished, over every lane. */
	private final AtomicInteger outstanding = new AtomicInteger();

	private volatile boolean shutdown;

	/**
	 * Starts the lanes.
	 * @param count the lanes
	 * @param maxBatch the most deliveries handed over at once, at least 1
	 * @param lingerNanos how long a lane that found several deliveries waiting waits for more
	 * @param threads makes the lanes' threads
	 * @param handler handles a batch, in submission order; must not throw
	 */
	KeyPartitions(int count, int maxBatch, long lingerNanos, ThreadFactory threads, Consumer<List<T>> handler) {
		this.maxBatch = Math.max(1, maxBatch);
		this.lingerNanos = Math.max(0, lingerNanos);
		this.handler = handler;
		for (int i = 0; i < count; i++) {
			Lane lane = new Lane();
			this.lanes.add(lane);
			threads.newThread(lane).start();
		}
	}

	/** The lane of a key: stable for the life of the process and the same lane count. */
	static int lane(@Nullable String key, int lanes, int unkeyed) {
		return (key != null) ? Math.floorMod(key.hashCode(), lanes) : Math.floorMod(unkeyed, lanes);
	}

	void submit(@Nullable String key, T item) {
		int lane = lane(key, this.lanes.size(), (key != null) ? 0 : this.nextUnkeyed.getAndIncrement());
		this.outstanding.incrementAndGet();
		this.lanes.get(lane).queue.add(item);
	}

	/**
	 * Waits until every submitted delivery was handled.
	 * @return whether they were before the deadline
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

	/** Whether every submitted delivery was handled. */
	boolean idle() {
		return this.outstanding.get() == 0;
	}

	/** Stops the lanes once they finished their current batch; what they still hold is dropped. */
	void shutdown() {
		this.shutdown = true;
		for (Lane lane : this.lanes) {
			Thread thread = lane.thread;
			if (thread != null && lane.waiting) {
				thread.interrupt();
			}
		}
	}

	private final class Lane implements Runnable {

		final LinkedBlockingQueue<T> queue = new LinkedBlockingQueue<>();

		volatile @Nullable Thread thread;

		/** Waiting for deliveries, not handling any: interrupting it stops nothing half done. */
		volatile boolean waiting;

		/** The most deliveries of its next batch: 1 after a slow batch, until a fast one. */
		private int limit = KeyPartitions.this.maxBatch;

		@Override
		public void run() {
			this.thread = Thread.currentThread();
			List<T> batch = new ArrayList<>();
			while (!KeyPartitions.this.shutdown) {
				try {
					this.waiting = true;
					if (KeyPartitions.this.shutdown) {
						return;
					}
					collect(batch);
				}
				catch (InterruptedException ex) {
					if (KeyPartitions.this.shutdown) {
						return;
					}
					// Not a shutdown: an interrupt a handler left on the thread (it called interrupt(),
					// or restored the flag after catching an InterruptedException). Ending the lane would
					// leave the deliveries of its keys unacknowledged for good.
					continue;
				}
				finally {
					this.waiting = false;
				}
				long started = System.nanoTime();
				try {
					if (!KeyPartitions.this.shutdown) {
						KeyPartitions.this.handler.accept(List.copyOf(batch));
					}
				}
				catch (RuntimeException | Error ex) {
					// An Error too (an OutOfMemoryError a handler threw): ending the lane's thread would leave
					// every later delivery of its keys unhandled and unacknowledged, with no sign of it but
					// the JVM's stderr, until the broker's consumer_timeout closed the channel.
					logger.error("A consumer lane failed on a batch of " + batch.size() + " deliveries; "
							+ "the broker delivers them again once the channel closes", ex);
				}
				finally {
					long perDelivery = (System.nanoTime() - started) / batch.size();
					this.limit = (perDelivery < SLOW_DELIVERY.toNanos()) ? KeyPartitions.this.maxBatch : 1;
					KeyPartitions.this.outstanding.addAndGet(-batch.size());
					batch.clear();
					if (Thread.interrupted()) {
						// A handler's interrupt is not the lane's: clear it before the lane waits again.
						logger.debug("A handler left its consumer thread interrupted; the interrupt is cleared");
					}
				}
			}
		}

		private void collect(List<T> batch) throws InterruptedException {
			batch.add(this.queue.take());
			int max = this.limit;
			this.queue.drainTo(batch, max - batch.size());
			if (batch.size() == 1 || batch.size() >= max || KeyPartitions.this.lingerNanos == 0) {
				return; // alone: at once; full: at once
			}
			// More are arriving: let the batch fill, briefly.
			long deadline = System.nanoTime() + KeyPartitions.this.lingerNanos;
			while (batch.size() < max) {
				long left = deadline - System.nanoTime();
				T next = (left > 0) ? this.queue.poll(left, TimeUnit.NANOSECONDS) : null;
				if (next == null) {
					return;
				}
				batch.add(next);
				this.queue.drainTo(batch, max - batch.size());
			}
		}

	}

}
