package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.waybill.outbox.test.TestPgBouncer;

/**
 * (11) Commit-to-confirm latency of a service whose application DataSource goes through PgBouncer
 * in {@code pool_mode = transaction}, at {@link #RATE} msg/s, by the way the relay learns of a
 * commit: {@code waybill.notifications.mode=listen} with the {@code LISTEN} connection straight to
 * PostgreSQL ({@code waybill.notifications.url}), and {@code waybill.notifications.mode=poll} at
 * the default poll interval; beside them the same two modes with the pools straight to
 * PostgreSQL, listen being the reference (see {@link WakeUpCase#ALL}).
 * <p>
 * Direct dispatch is not turned off by a property: each case runs a writer instance without a
 * relay (started without RabbitMQ) and a relay instance that writes nothing
 * ({@link WriterAndRelay}), so no message goes out by direct dispatch and every one waits for the
 * wake-up under test. Each case asserts that the relay's listener runs in the mode the case names,
 * and fails otherwise. The load is {@link Latency}'s: an open-loop generator on
 * {@link Latency#SENDERS} threads, each business transaction inserting one row and publishing one
 * 1 KiB message, commit (when the transaction returned) to confirm (when the relay reports the
 * scope published). Every case first runs {@link Sizes#jitWarmUpSeconds()} untimed; then each run
 * measures every case in turn, {@link Sizes#warmUpSeconds()} of warm-up then
 * {@link Sizes#latencySeconds()} measured, and each figure's ratio to the reference of the same run.
 */
final class PooledLatency implements Benchmark {

	static final String NAME = "pooled";

	/** The offered load, messages per second. */
	static final int RATE = 100;

	/** PgBouncer's server connections ({@code default_pool_size}), which every pooled case shares. */
	static final int POOLER_CONNECTIONS = 4;

	/** The ratio figures' suffix: the figure over the reference's of the same run. */
	static final String OVER_REFERENCE = " / reference";

	private static final List<Integer> PERCENTILES = List.of(50, 99);

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		TestPgBouncer pooler = context.register(TestPgBouncer.start(POOLER_CONNECTIONS));
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		List<WriterAndRelay> cases = new ArrayList<>();
		for (WakeUpCase wakeUp : WakeUpCase.ALL) {
			cases.add(WriterAndRelay.start(context, pooler, wakeUp, queue.exchange()));
		}
		progress.report(pooler + "; warm-up (untimed): " + sizes.jitWarmUpSeconds() + " s of each case at " + RATE + " msg/s");
		for (WriterAndRelay instances : cases) {
			instances.measure(RATE, 0, sizes.jitWarmUpSeconds());
			queue.purge();
		}
		Map<String, List<Double>> figures = new LinkedHashMap<>();
		for (int run = 1; run <= context.runs(); run++) {
			Map<Integer, Double> reference = new LinkedHashMap<>();
			for (WriterAndRelay instances : cases) {
				WakeUpCase wakeUp = instances.wakeUp();
				LatencyWindow window = instances.measure(RATE, sizes.warmUpSeconds(), sizes.latencySeconds());
				queue.purge();
				// The mode could change while it ran (a lost LISTEN connection): the figure would not be the case's.
				instances.checkWakeUp();
				StringBuilder line = new StringBuilder(wakeUp.label() + "run " + run + ":");
				for (int percentile : PERCENTILES) {
					double millis = window.percentileMillis(percentile);
					Latency.add(figures, Latency.figure(wakeUp.label() + "p" + percentile, RATE), millis);
					// The reference runs first in every run (WakeUpCase.ALL), so the others divide by this run's.
					if (wakeUp.equals(WakeUpCase.REFERENCE)) {
						reference.put(percentile, millis);
					}
					else {
						Latency.add(figures, Latency.figure(wakeUp.label() + "p" + percentile + OVER_REFERENCE, RATE),
								millis / reference.get(percentile));
					}
					line.append(" p").append(percentile).append(' ').append(ResultTable.number(millis)).append(" ms");
				}
				MeasuredLoad load = window.load();
				progress.report(line + ", achieved " + ResultTable.number(load.achieved()) + " msg/s"
						+ (load.dropped() > 0 ? ", " + load.dropped() + " sends dropped (could not start in time)" : ""));
			}
		}
		List<Measurement> results = new ArrayList<>();
		String note = sizes.latencySeconds() + " s measured after " + sizes.warmUpSeconds() + " s warm-up (and "
				+ sizes.jitWarmUpSeconds() + " s untimed of each case first); writer instance without relay, "
				+ "relay instance woken by the case's mode, PgBouncer pool of " + POOLER_CONNECTIONS
				+ ": 1-row business tx + 1 outbox message, commit to confirm";
		figures.forEach((figure, values) -> results.add(new Measurement(NAME, figure,
				figure.contains(OVER_REFERENCE) ? "x" : "ms", values, note)));
		return results;
	}

}
