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
				figure(RelayThroughput.NAME, RelayThroughput.figure(10), 6_000),
				figure(WritePath.NAME, WritePath.WITHOUT, 3_000),
				figure(WritePath.NAME, WritePath.WITH, 2_500),
				figure(Latency.NAME, Latency.figure("p99", 1_000), 60, 40, 70),
				figure(Latency.NAME, Latency.figure(Latency.FLOOR + "p99", 1_000), 48),
				figure(Latency.NAME, Latency.figure("p50", 1_000), 10),
				figure(Latency.NAME, Latency.figure(Latency.FLOOR + "p50", 1_000), 4),
				figure(InboxThroughput.NAME, InboxThroughput.BARE, 8_000),
				figure(InboxThroughput.NAME, InboxThroughput.INBOX, 4_000),
				figure(TableScale.NAME, TableScale.claimFigure(0), 2),
				figure(TableScale.NAME, TableScale.claimFigure(1_000_000), 2.5),
				figure(TableScale.NAME, TableScale.claimFigure(5_000_000), 5)));
		assertThat(targets).extracting(Target::name)
			.containsExactly("relay / broker ceiling, scopes of 1", "relay / broker ceiling, scopes of 10",
					"write-path overhead (tx/s without / with outbox)", "p99 @ 1,000 msg/s / floor p99",
					"p50 @ 1,000 msg/s / floor p50", "inbox / bare consume", "claim time 5M kept / 0 kept");
		assertThat(targets).extracting(Target::measured).containsExactly(0.4, 0.6, 1.2, 1.25, 2.5, 0.5, 2.5);
		assertThat(targets).extracting(Target::met).containsExactly(false, true, true, true, false, true, false);
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
