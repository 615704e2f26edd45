package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The benchmarks' targets, each a ratio of medians measured in the same run; a target whose figures
 * were not measured (a subset was run) is left out.
 */
final class Targets {

	private Targets() {
	}

	static List<Target> check(List<Measurement> measurements) {
		List<Target> targets = new ArrayList<>();
		Optional<Double> broker = median(measurements, BrokerCeiling.NAME, BrokerCeiling.FIGURE);
		for (int scopeSize : RelayThroughput.SCOPE_SIZES) {
			Optional<Double> relay = median(measurements, RelayThroughput.NAME, RelayThroughput.figure(scopeSize));
			if (broker.isPresent() && relay.isPresent()) {
				double goal = (scopeSize == 1) ? 0.9 : 0.5;
				targets.add(Target.atLeast("relay / broker ceiling, scopes of " + scopeSize, relay.get() / broker.get(),
						goal, (scopeSize == 1) ? ">= 0.90" : ">= 0.50")
					.drawnOn(RelayThroughput.NAME, RelayThroughput.figure(scopeSize), goal * broker.get()));
			}
		}
		Optional<Double> without = median(measurements, WritePath.NAME, WritePath.WITHOUT);
		Optional<Double> with = median(measurements, WritePath.NAME, WritePath.WITH);
		if (without.isPresent() && with.isPresent()) {
			targets.add(Target.atMost("write-path overhead (tx/s without / with outbox)", without.get() / with.get(), 2.0,
					"<= 2.0")
				.drawnOn(WritePath.NAME, WritePath.WITH, without.get() / 2.0));
		}
		for (String percentile : List.of("p99", "p50")) {
			Optional<Double> waybill = median(measurements, Latency.NAME, Latency.figure(percentile, 1_000));
			Optional<Double> floor = median(measurements, Latency.NAME, Latency.figure(Latency.FLOOR + percentile, 1_000));
			double goal = percentile.equals("p99") ? 1.5 : 2.0;
			if (waybill.isPresent() && floor.isPresent()) {
				targets.add(Target.atMost(percentile + " @ 1,000 msg/s / floor " + percentile, waybill.get() / floor.get(),
						goal, String.format(java.util.Locale.ROOT, "<= %.1f", goal))
					.drawnOn(Latency.NAME, Latency.figure(percentile, 1_000), goal * floor.get()));
			}
		}
		Optional<Double> unorderedTail = median(measurements, Latency.NAME, Latency.figure("p99", Latency.ONE_KEY_RATE));
		Optional<Double> oneKeyTail = median(measurements, Latency.NAME,
				Latency.figure(Latency.ONE_KEY + "p99", Latency.ONE_KEY_RATE));
		if (unorderedTail.isPresent() && oneKeyTail.isPresent()) {
			targets.add(Target.atMost("p99 1 key / unordered @ 1,000 msg/s", oneKeyTail.get() / unorderedTail.get(), 2.0,
					"<= 2.0"));
		}
		Optional<Double> bare = median(measurements, InboxThroughput.NAME, InboxThroughput.BARE);
		Optional<Double> inbox = median(measurements, InboxThroughput.NAME, InboxThroughput.INBOX);
		if (bare.isPresent() && inbox.isPresent()) {
			targets.add(Target.atLeast("inbox / bare consume", inbox.get() / bare.get(), 0.5, ">= 0.50")
				.drawnOn(InboxThroughput.NAME, InboxThroughput.INBOX, 0.5 * bare.get()));
		}
		Optional<Double> unordered = median(measurements, OrderedRelayThroughput.NAME, OrderedRelayThroughput.UNORDERED);
		if (unordered.isPresent()) {
			orderedTarget(targets, measurements, unordered.get(), OrderedRelayThroughput.KEYS_10K, "10,000 ordering keys",
					0.9);
			orderedTarget(targets, measurements, unordered.get(), OrderedRelayThroughput.SKEWED,
					"skewed ordering keys", 0.8);
			orderedTarget(targets, measurements, unordered.get(), OrderedRelayThroughput.KEYS_10, "10 ordering keys", 0.7);
			orderedTarget(targets, measurements, unordered.get(), OrderedRelayThroughput.ONE_KEY, "1 ordering key", 0.5);
		}
		Optional<Double> endToEnd = median(measurements, OrderedRelayThroughput.NAME,
				OrderedRelayThroughput.END_TO_END_UNORDERED);
		Optional<Double> endToEndOneKey = median(measurements, OrderedRelayThroughput.NAME,
				OrderedRelayThroughput.END_TO_END_ONE_KEY);
		if (endToEnd.isPresent() && endToEndOneKey.isPresent()) {
			targets.add(Target.atLeast("end to end with 1 ordering key / unordered", endToEndOneKey.get() / endToEnd.get(),
					0.5, ">= 0.50"));
		}
		Optional<Double> writesDuringPurge = median(measurements, RetentionPurge.NAME, RetentionPurge.RATIO);
		Optional<Double> writesWithoutPurge = median(measurements, RetentionPurge.NAME, RetentionPurge.WITHOUT);
		if (writesDuringPurge.isPresent() && writesWithoutPurge.isPresent()) {
			targets.add(Target.atLeast("write load during / without purge (default pacing)", writesDuringPurge.get(), 0.9,
					">= 0.90")
				.drawnOn(RetentionPurge.NAME, RetentionPurge.DURING, 0.9 * writesWithoutPurge.get()));
		}
		Optional<Double> pacedPurge = median(measurements, RetentionPurge.NAME, RetentionPurge.PACED_RATIO);
		pacedPurge.ifPresent((ratio) -> targets.add(Target.atLeast("paced purge rate / write rate", ratio, 5, ">= 5.0")));
		median(measurements, WalLifecycle.NAME, WalLifecycle.ratioFigure(WalLifecycle.LIFECYCLE)).ifPresent(
				(ratio) -> targets.add(Target.atMost("WAL per message, whole lifecycle / floor", ratio, 1.3, "<= 1.3")));
		median(measurements, WalLifecycle.NAME, WalLifecycle.ratioFigure(WalLifecycle.CLAIMED)).ifPresent(
				(ratio) -> targets.add(Target.atMost("WAL per message, claimed path / floor", ratio, 1.5, "<= 1.5")));
		Optional<Double> oneStore = median(measurements, StoreRelayThroughput.NAME, StoreRelayThroughput.DRAIN_ONE);
		Optional<Double> manyStores = median(measurements, StoreRelayThroughput.NAME, StoreRelayThroughput.DRAIN_MANY);
		if (oneStore.isPresent() && manyStores.isPresent()) {
			targets.add(Target.atLeast("relay over " + StoreRelayThroughput.DRAIN_STORES + " stores / 1 store",
					manyStores.get() / oneStore.get(), 0.9, ">= 0.90"));
		}
		Optional<Double> oneDown = median(measurements, StoreRelayThroughput.NAME, StoreRelayThroughput.DRAIN_ONE_DOWN);
		if (manyStores.isPresent() && oneDown.isPresent()) {
			targets.add(Target.atLeast("relay over " + StoreRelayThroughput.DRAIN_STORES
					+ " stores with one more unavailable / without it", oneDown.get() / manyStores.get(), 0.9, ">= 0.90"));
		}
		Optional<Double> defaultWrites = median(measurements, StoreRelayThroughput.NAME, StoreRelayThroughput.WRITE_DEFAULT);
		Optional<Double> resolvedWrites = median(measurements, StoreRelayThroughput.NAME,
				StoreRelayThroughput.WRITE_RESOLVED);
		if (defaultWrites.isPresent() && resolvedWrites.isPresent()) {
			targets.add(Target.atLeast("write path, store by a StoreResolver / default store only",
					resolvedWrites.get() / defaultWrites.get(), 0.95, ">= 0.95"));
		}
		List<Measurement> claims = measurements.stream()
			.filter((m) -> m.benchmark().equals(TableScale.NAME) && m.figure().startsWith("claim time"))
			.toList();
		if (claims.size() >= 2) {
			Measurement smallest = claims.get(0);
			Measurement largest = claims.get(claims.size() - 1);
			targets.add(Target.atMost(
					"claim time " + largest.figure().replace("claim time, ", "") + " / "
							+ smallest.figure().replace("claim time, ", ""),
					largest.median() / smallest.median(), 2, "<= 2.0 (flat)"));
		}
		return targets;
	}

	private static Optional<Double> median(List<Measurement> measurements, String benchmark, String figure) {
		return measurements.stream()
			.filter((m) -> m.benchmark().equals(benchmark) && m.figure().equals(figure))
			.findFirst()
			.map(Measurement::median);
	}

	private static void orderedTarget(List<Target> targets, List<Measurement> measurements, double unordered,
			String figure, String shown, double goal) {
		median(measurements, OrderedRelayThroughput.NAME, figure)
			.ifPresent((rate) -> targets.add(Target.atLeast("relay with " + shown + " / unordered", rate / unordered, goal,
					String.format(java.util.Locale.ROOT, ">= %.2f", goal))));
	}

}
