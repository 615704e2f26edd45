package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One measured window of commit-to-confirm latency: the relay of {@code relay} running while
 * {@code writer} offers an open-loop load ({@link MeasuredLoad}), until the relay has published
 * all of it.
 *
 * @param micros sorted microseconds from commit to confirm of each measured message
 * @param load what the writer committed
 */
record LatencyWindow(long[] micros, MeasuredLoad load) {

	/**
	 * Offers the load with the relay running, and waits until the relay has published all of it;
	 * the relay is paused again afterwards.
	 * @param relay the instance whose relay publishes (it may be the writer's own)
	 * @param writer the business transactions
	 * @param rate transactions per second
	 * @param warmUpSeconds seconds not measured
	 * @param seconds seconds measured
	 * @return the window
	 */
	static LatencyWindow measure(OutboxWiring relay, WriteLoad writer, int rate, int warmUpSeconds, int seconds)
			throws InterruptedException {
		Map<UUID, Instant> confirmed = new ConcurrentHashMap<>();
		MeasuredLoad load;
		try (OutboxWiring.RunningRelay running = relay
			.startRelay((message, at) -> confirmed.put(message.messageId(), at))) {
			load = MeasuredLoad.run(Latency.SENDERS, rate, warmUpSeconds, seconds, (index) -> writer.sendOrder(index, null));
			running.awaitPublished(load.sent(), Duration.ofMinutes(2));
		}
		return new LatencyWindow(Intervals.micros(load.committed(), confirmed), load);
	}

	double percentileMillis(double percent) {
		return Stats.percentile(this.micros, percent) / (double) TimeUnit.MILLISECONDS.toMicros(1);
	}

}
