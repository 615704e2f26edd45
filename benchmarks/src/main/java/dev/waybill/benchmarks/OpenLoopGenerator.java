package dev.waybill.benchmarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * An open-loop load: send {@code i} is due at {@code start + i / rate} by the wall clock and is
 * handed to a pool of sender threads when due, whether or not earlier sends have finished, so a
 * slow system gets a queue, not a lighter load. So that an overloaded system does not make the run
 * last for ever, a send that has not started {@link #GIVE_UP_AFTER_NANOS} after the last one was
 * due is dropped and counted in {@link #dropped()}.
 */
final class OpenLoopGenerator {

	private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	/** How long after the last send was due the remaining ones are dropped. */
	static final long GIVE_UP_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final int senders;

	private final AtomicLong dropped = new AtomicLong();

	OpenLoopGenerator(int senders) {
		this.senders = senders;
	}

	/**
	 * Returns the sends dropped because they could not start in time.
	 * @return the count
	 */
	long dropped() {
		return this.dropped.get();
	}

	/**
	 * Offers {@code count} sends at {@code rate} per second and waits until all have run.
	 * @param rate sends per second
	 * @param count how many
	 * @param send runs one send, given its index
	 */
	void run(int rate, long count, LongConsumer send) throws InterruptedException {
		AtomicInteger threadNumber = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(this.senders, (task) -> {
			Thread thread = new Thread(task, "bench-sender-" + threadNumber.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		try {
			double interval = 1e9 / rate;
			long start = System.nanoTime();
			long giveUp = start + (long) (count * interval) + GIVE_UP_AFTER_NANOS;
			for (long i = 0; i < count; i++) {
				long due = start + (long) (i * interval);
				long wait;
				while ((wait = due - System.nanoTime()) > 0) {
					LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
				}
				long index = i;
				pool.execute(() -> {
					if (System.nanoTime() - giveUp > 0) {
						this.dropped.incrementAndGet();
					}
					else {
						send.accept(index);
					}
				});
			}
		}
		finally {
			pool.shutdown();
			if (!pool.awaitTermination(5, TimeUnit.MINUTES)) {
				pool.shutdownNow();
				throw new IllegalStateException("Sends still running 5 minutes after the last was due");
			}
		}
	}

}
