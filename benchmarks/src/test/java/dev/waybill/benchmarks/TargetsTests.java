package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class TargetsTests {

	@Test
	void eachTargetIsARatioOfMediansFromTheSameRun() {
		List<Target> targets = Targets.check(List.of(
				figure(BrokerCeiling.NAME, BrokerCeiling.FIGURE, 10_000, 9_000, 11_000),
				figure(RelayThroughput.NAME, RelayThroughput.figure(1), 4_000, 4_400, 3_000),
				figure(RelayThroughput.NAME, RelayThroughput.figure(10), 9_500),
				figure(WritePath.NAME, WritePath.WITHOUT, 3_000),
				figure(WritePath.NAME, WritePath.WITH, 2_500),
				figure(Latency.NAME, Latency.figure("p99", 1_000), 60, 40, 70),
				figure(Latency.NAME, Latency.figure(Latency.FLOOR + "p99", 1_000), 50),
				figure(Latency.NAME, Latency.figure("p50", 1_000), 3),
				figure(Latency.NAME, Latency.figure(Latency.FLOOR + "p50", 1_000), 1),
				figure(InboxThroughput.NAME, InboxThroughput.BARE, 8_000),
				figure(InboxThroughput.NAME, InboxThroughput.INBOX, 4_000),
				figure(RetentionPurge.NAME, RetentionPurge.WITHOUT, 3_000),
				figure(RetentionPurge.NAME, RetentionPurge.DURING, 2_850),
				figure(RetentionPurge.NAME, RetentionPurge.RATIO, 0.95, 0.9, 1.0),
				figure(TableScale.NAME, TableScale.claimFigure(0), 2),
				figure(TableScale.NAME, TableScale.claimFigure(1_000_000), 2.5),
				figure(TableScale.NAME, TableScale.claimFigure(5_000_000), 5)));
		assertThat(targets).extracting(Target::name)
			.containsExactly("relay / broker ceiling, scopes of 1", "relay / broker ceiling, scopes of 10",
					"write-path overhead (tx/s without / with outbox)",
					"p99 @ 1,000 msg/s / floor p99", "p50 @ 1,000 msg/s / floor p50", "inbox / bare consume",
					"write load during / without purge (default pacing)", "claim time 5M kept / 0 kept");
		assertThat(targets).extracting(Target::goal)
			.containsExactly(">= 0.90", ">= 0.50", "<= 2.0", "<= 1.5", "<= 2.0", ">= 0.50", ">= 0.90", "<= 2.0 (flat)");
		assertThat(targets).extracting(Target::measured).containsExactly(0.4, 0.95, 1.2, 1.2, 3.0, 0.5, 0.95, 2.5);
		assertThat(targets).extracting(Target::met)
			.containsExactly(false, true, true, true, false, true, true, false);
	}

	@Test
	void ratioTargetsAreDrawnOnTheirFigureAtTheValueItMustReach() {
		List<Target> targets = Targets.check(List.of(figure(BrokerCeiling.NAME, BrokerCeiling.FIGURE, 10_000),
				figure(RelayThroughput.NAME, RelayThroughput.figure(1), 4_000),
				figure(WritePath.NAME, WritePath.WITHOUT, 3_000), figure(WritePath.NAME, WritePath.WITH, 2_500),
				figure(Latency.NAME, Latency.figure("p99", 1_000), 60),
				figure(Latency.NAME, Latency.figure(Latency.FLOOR + "p99", 1_000), 50),
				figure(InboxThroughput.NAME, InboxThroughput.BARE, 8_000),
				figure(InboxThroughput.NAME, InboxThroughput.INBOX, 4_000),
				figure(RetentionPurge.NAME, RetentionPurge.WITHOUT, 3_000),
				figure(RetentionPurge.NAME, RetentionPurge.DURING, 2_850),
				figure(RetentionPurge.NAME, RetentionPurge.RATIO, 0.95)));
		assertThat(targets).extracting(Target::line)
			.containsExactly(new Target.Line(RelayThroughput.NAME, RelayThroughput.figure(1), 9_000),
					new Target.Line(WritePath.NAME, WritePath.WITH, 1_500),
					new Target.Line(Latency.NAME, Latency.figure("p99", 1_000), 75),
					new Target.Line(InboxThroughput.NAME, InboxThroughput.INBOX, 4_000),
					new Target.Line(RetentionPurge.NAME, RetentionPurge.DURING, 2_700));
	}

	@Test
	void eachOrderedDrainIsCheckedAgainstTheUnorderedDrainOfItsRun() {
		List<Target> targets = Targets.check(List.of(
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.UNORDERED, 10_000),
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.KEYS_10K, 9_500),
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.SKEWED, 7_000),
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.KEYS_10, 7_000),
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.ONE_KEY, 300)));
		assertThat(targets).extracting(Target::name)
			.containsExactly("relay with 10,000 ordering keys / unordered", "relay with skewed ordering keys / unordered",
					"relay with 10 ordering keys / unordered", "relay with 1 ordering key / unordered");
		assertThat(targets).extracting(Target::goal).containsExactly(">= 0.90", ">= 0.80", ">= 0.70", ">= 0.50");
		assertThat(targets).extracting(Target::measured).containsExactly(0.95, 0.7, 0.7, 0.03);
		assertThat(targets).extracting(Target::met).containsExactly(true, false, true, false);
	}

	@Test
	void theHotKeyEndToEndIsCheckedAgainstTheUnorderedEndToEndOfItsRun() {
		List<Target> targets = Targets.check(List.of(
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.END_TO_END_UNORDERED, 4_000),
				figure(OrderedRelayThroughput.NAME, OrderedRelayThroughput.END_TO_END_ONE_KEY, 2_200)));
		assertThat(targets).extracting(Target::name).containsExactly("end to end with 1 ordering key / unordered");
		assertThat(targets).extracting(Target::measured).containsExactly(0.55);
		assertThat(targets).extracting(Target::met).containsExactly(true);
	}

	@Test
	void theOneKeyLatencyTailIsCheckedAgainstTheUnorderedTailOfItsRun() {
		List<Target> targets = Targets.check(List.of(figure(Latency.NAME, Latency.figure("p99", 1_000), 10, 12, 30),
				figure(Latency.NAME, Latency.figure(Latency.ONE_KEY + "p99", 1_000), 25, 20, 24),
				figure(Latency.NAME, Latency.figure(Latency.ONE_KEY + "p50", 1_000), 5)));
		assertThat(targets).extracting(Target::name).containsExactly("p99 1 key / unordered @ 1,000 msg/s");
		assertThat(targets).extracting(Target::goal).containsExactly("<= 2.0");
		assertThat(targets).extracting(Target::measured).containsExactly(2.0);
		assertThat(targets).extracting(Target::met).containsExactly(true);
		assertThat(targets).extracting(Target::line).containsOnlyNulls();
	}

	@Test
	void theWalOfTheLifecycleAndOfTheClaimedPathIsCheckedAgainstTheFloorOfItsRun() {
		List<Target> targets = Targets.check(List.of(
				figure(WalLifecycle.NAME, WalLifecycle.ratioFigure(WalLifecycle.LIFECYCLE), 1.9, 1.8, 2.0),
				figure(WalLifecycle.NAME, WalLifecycle.ratioFigure(WalLifecycle.CLAIMED), 1.4),
				figure(WalLifecycle.NAME, WalLifecycle.ratioFigure(WalLifecycle.DIRECT), 1.7)));
		assertThat(targets).extracting(Target::name)
			.containsExactly("WAL per message, whole lifecycle / floor", "WAL per message, claimed path / floor");
		assertThat(targets).extracting(Target::goal).containsExactly("<= 1.3", "<= 1.5");
		assertThat(targets).extracting(Target::measured).containsExactly(1.9, 1.4);
		assertThat(targets).extracting(Target::met).containsExactly(false, true);
	}

	@Test
	void manyStoresAreCheckedAgainstOneStoreOfTheSameRun() {
		List<Target> targets = Targets.check(List.of(
				figure(StoreRelayThroughput.NAME, StoreRelayThroughput.DRAIN_ONE, 10_000, 9_000, 11_000),
				figure(StoreRelayThroughput.NAME, StoreRelayThroughput.DRAIN_MANY, 8_500, 9_500, 8_000),
				figure(StoreRelayThroughput.NAME, StoreRelayThroughput.WRITE_DEFAULT, 4_000),
				figure(StoreRelayThroughput.NAME, StoreRelayThroughput.WRITE_RESOLVED, 3_900),
				figure(StoreRelayThroughput.NAME, StoreRelayThroughput.idleFigure(200, StoreRelayThroughput.THREADS), 7)));
		assertThat(targets).extracting(Target::name)
			.containsExactly("relay over 10 stores / 1 store", "write path, store by a StoreResolver / default store only");
		assertThat(targets).extracting(Target::goal).containsExactly(">= 0.90", ">= 0.95");
		assertThat(targets).extracting(Target::measured).containsExactly(0.85, 0.975);
		assertThat(targets).extracting(Target::met).containsExactly(false, true);
	}

	@Test
	void targetsWhoseFiguresWereNotMeasuredAreLeftOut() {
		assertThat(Targets.check(List.of(figure(RelayThroughput.NAME, RelayThroughput.figure(1), 4_000)))).isEmpty();
	}

	@Test
	void scaleLabelsAreShort() {
		assertThat(TableScale.claimFigure(5_000_000)).isEqualTo("claim time, 5M kept");
		assertThat(TableScale.label(20_000)).isEqualTo("20k");
		assertThat(TableScale.label(0)).isEqualTo("0");
		assertThat(TableScale.label(1_500)).isEqualTo("1500");
	}

	private static Measurement figure(String benchmark, String figure, double... runs) {
		return new Measurement(benchmark, figure, "unit", java.util.Arrays.stream(runs).boxed().toList(), "");
	}

}
