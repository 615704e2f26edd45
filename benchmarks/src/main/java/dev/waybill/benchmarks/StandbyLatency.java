package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.ReplicatedPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * (12) What {@code waybill.outbox.relay.await-standbys: 1} costs: commit-to-confirm latency of
 * one service (as 4: one business row and one 1 KiB message per transaction, open-loop on
 * {@link Latency#SENDERS} threads, published by direct dispatch, the usual path) on a primary with
 * an asynchronous streaming standby of the benchmark's own ({@link ReplicatedPostgres}, on this
 * machine), once publishing at once and once waiting until the standby has flushed each batch's
 * commits; both on schemas of their own on the same pair, measured in turn in every run, at
 * {@link #RATES}. The wait's figures are also given over the no-wait ones of the same run.
 */
final class StandbyLatency implements Benchmark {

	static final String NAME = "standby";

	static final List<Integer> RATES = List.of(100, 1_000);

	static final String NO_WAIT = "publish at once ";

	static final String AWAIT = "await-standbys: 1 ";

	static final String OVER_NO_WAIT = " / at once";

	private static final List<Integer> PERCENTILES = List.of(50, 99);

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		ReplicatedPostgres servers = context.register(ReplicatedPostgres.start("standby", ReplicatedPostgres.Replication.ASYNCHRONOUS));
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		Map<String, OutboxWiring> cases = new LinkedHashMap<>();
		for (String name : List.of(NO_WAIT, AWAIT)) {
			TestSchema schema = context.register(TestSchema.withWaybillTables(servers.database(PrivatePostgres.DATABASE),
					"bench_standby"));
			cases.put(name, context.wiring(schema, (app) -> app.rabbit(context.rabbit())
				.property("waybill.outbox.relay.await-standbys", name.equals(AWAIT) ? 1 : 0)));
		}
		progress.report(servers + "; warm-up (untimed): " + sizes.jitWarmUpSeconds() + " s of each case");
		for (OutboxWiring wiring : cases.values()) {
			LatencyWindow.measure(wiring, new WriteLoad(wiring, queue.exchange()), RATES.get(RATES.size() - 1), 0,
					sizes.jitWarmUpSeconds());
			queue.purge();
		}
		Map<String, List<Double>> figures = new LinkedHashMap<>();
		for (int run = 1; run <= context.runs(); run++) {
			for (int rate : RATES) {
				Map<Integer, Double> atOnce = new LinkedHashMap<>();
				for (Map.Entry<String, OutboxWiring> entry : cases.entrySet()) {
					String name = entry.getKey();
					OutboxWiring wiring = entry.getValue();
					LatencyWindow window = LatencyWindow.measure(wiring, new WriteLoad(wiring, queue.exchange()), rate,
							sizes.warmUpSeconds(), sizes.latencySeconds());
					queue.purge();
					StringBuilder line = new StringBuilder(name + rate + " msg/s, run " + run + ":");
					for (int percentile : PERCENTILES) {
						double millis = window.percentileMillis(percentile);
						Latency.add(figures, Latency.figure(name + "p" + percentile, rate), millis);
						if (name.equals(NO_WAIT)) {
							atOnce.put(percentile, millis);
						}
						else {
							Latency.add(figures, Latency.figure(name + "p" + percentile + OVER_NO_WAIT, rate),
									millis / atOnce.get(percentile));
						}
						line.append(" p").append(percentile).append(' ').append(ResultTable.number(millis)).append(" ms");
					}
					progress.report(line + ", achieved " + ResultTable.number(window.load().achieved()) + " msg/s");
				}
			}
		}
		String note = sizes.latencySeconds() + " s measured after " + sizes.warmUpSeconds()
				+ " s warm-up; primary + asynchronous standby on this machine; 1-row business tx + 1 outbox message, "
				+ "direct dispatch, commit to confirm";
		List<Measurement> results = new ArrayList<>();
		figures.forEach((figure, values) -> results.add(new Measurement(NAME, figure,
				figure.contains(OVER_NO_WAIT) ? "x" : "ms", values, note)));
		return results;
	}

}
