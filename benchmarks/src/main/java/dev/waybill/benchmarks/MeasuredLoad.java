package dev.waybill.benchmarks;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * One timed window of an open-loop load ({@link OpenLoopGenerator}) of business transactions that
 * each publish one message: a warm-up, then the measured seconds, with the time each transaction
 * of the measured part committed (when it returned), keyed by its message's id.
 *
 * @param committed when each measured transaction committed, by message id
 * @param sent the transactions committed, warm-up included
 * @param achieved committed transactions per second over the whole window
 * @param dropped sends that could not start in time
 */
record MeasuredLoad(Map<UUID, Instant> committed, long sent, double achieved, long dropped) {

	/**
	 * Offers {@code rate} transactions per second for {@code warmUpSeconds + measuredSeconds}.
	 * @param senders the sender threads
	 * @param rate transactions per second
	 * @param warmUpSeconds seconds whose commits are not recorded
	 * @param measuredSeconds seconds whose commits are
	 * @param send one business transaction, given its index; returns its message's id
	 * @return what was committed
	 */
	static MeasuredLoad run(int senders, int rate, int warmUpSeconds, int measuredSeconds, LongFunction<UUID> send)
			throws InterruptedException {
		long total = (long) rate * (warmUpSeconds + measuredSeconds);
		Map<UUID, Instant> committed = new ConcurrentHashMap<>();
		AtomicLong sent = new AtomicLong();
		OpenLoopGenerator generator = new OpenLoopGenerator(senders);
		Timer timer = Timer.start();
		long measureFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmUpSeconds);
		generator.run(rate, total, (index) -> {
			UUID id = send.apply(index);
			Instant at = Instant.now();
			sent.incrementAndGet();
			if (System.nanoTime() - measureFrom >= 0) {
				committed.put(id, at);
			}
		});
		double achieved = sent.get() / timer.seconds();
		if (committed.isEmpty()) {
			throw new IllegalStateException("No transaction committed after the warm-up at " + rate + " msg/s");
		}
		return new MeasuredLoad(committed, sent.get(), achieved, generator.dropped());
	}

}
