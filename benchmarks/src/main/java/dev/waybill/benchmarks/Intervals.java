package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The time messages took from one point of their path to another, from the instants recorded at
 * each point by message id: sorted microseconds, for {@link Stats#percentile}.
 */
final class Intervals {

	private Intervals() {
	}

	/**
	 * Returns the sorted microseconds from {@code from} to {@code to} of every message in both.
	 * @param from when each message passed the first point
	 * @param to when each message passed the second
	 * @return the sorted microseconds, none negative
	 */
	static long[] micros(Map<UUID, Instant> from, Map<UUID, Instant> to) {
		return micros(from, to, from.keySet());
	}

	/**
	 * Returns the sorted microseconds from {@code from} to {@code to} of the given messages found in both.
	 * @param from when each message passed the first point
	 * @param to when each message passed the second
	 * @param ids the messages to count
	 * @return the sorted microseconds, none negative
	 */
	static long[] micros(Map<UUID, Instant> from, Map<UUID, Instant> to, Set<UUID> ids) {
		return ids.stream()
			.filter((id) -> from.containsKey(id) && to.containsKey(id))
			.mapToLong((id) -> Math.max(0, TimeUnit.NANOSECONDS.toMicros(Duration.between(from.get(id), to.get(id)).toNanos())))
			.sorted()
			.toArray();
	}

}
