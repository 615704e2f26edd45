package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Runs a numbered task a fixed number of times on a few threads, each taking the next number.
 */
final class Parallel {

	private Parallel() {
	}

	/**
	 * Runs {@code task} for 1 to {@code count} on {@code threads} threads and waits for them.
	 * @param threads how many threads
	 * @param count how many tasks
	 * @param task given each number once
	 * @throws IllegalStateException with the first failure, after the others stopped
	 */
	static void run(int threads, long count, LongConsumer task) throws InterruptedException {
		AtomicLong next = new AtomicLong();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Thread worker = new Thread(() -> {
				for (long n = next.incrementAndGet(); n <= count && failures.isEmpty(); n = next.incrementAndGet()) {
					try {
						task.accept(n);
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
				}
			}, "bench-parallel-" + i);
			worker.setDaemon(true);
			workers.add(worker);
		}
		workers.forEach(Thread::start);
		for (Thread worker : workers) {
			worker.join();
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException("A task failed: " + failures.get(0), failures.get(0));
		}
	}

}
