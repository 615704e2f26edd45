package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;

import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.internal.RetentionWorker;

/**
 * (6) Retention: purge rate of eligible rows (published scopes older than the default 30 days,
 * one message each, written with SQL outside the timed window) by one {@link RetentionWorker#runOnce()}
 * with the default settings, and the throughput of a concurrent write load during the purge
 * against the same load, on the same table, without it.
 */
final class RetentionPurge implements Benchmark {

	static final String NAME = "retention";

	static final String PURGE = "purge of eligible scopes (+ their messages)";

	static final String WITHOUT = "write load without purge";

	static final String DURING = "write load during purge";

	static final String RATIO = "write load during / without purge";

	static final int WRITERS = 4;

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		WriteLoad load = WriteLoad.on(context, NAME);
		OutboxWiring wiring = load.wiring();
		Rows rows = new Rows(wiring.schema());
		RetentionWorker worker = new RetentionWorker(wiring.schema().dataSource(), wiring.schema().tables(),
				RetentionSettings.defaults(), RetentionListener.NONE);
		List<Double> purgeRates = new ArrayList<>();
		List<Double> without = new ArrayList<>();
		List<Double> during = new ArrayList<>();
		List<Double> ratios = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			rows.truncate();
			load.truncate();
			rows.published(sizes.retentionRows(), "31 days");
			rows.vacuumAnalyze();
			without.add(load.run(WRITERS, true, sizes.writeSeconds()));
			long[] purged = new long[1];
			double[] seconds = new double[1];
			during.add(load.runWhile(WRITERS, true, () -> {
				Timer timer = Timer.start();
				RetentionResult result = worker.runOnce();
				seconds[0] = timer.seconds();
				purged[0] = result.outboxStates();
				return null;
			}));
			if (purged[0] < sizes.retentionRows()) {
				throw new IllegalStateException("The purge removed " + purged[0] + " of " + sizes.retentionRows()
						+ " eligible scopes");
			}
			purgeRates.add(purged[0] / seconds[0]);
			ratios.add(during.get(run - 1) / without.get(run - 1));
			progress.report("run " + run + ": purge " + ResultTable.number(purgeRates.get(run - 1)) + " scopes/s, writes "
					+ ResultTable.number(without.get(run - 1)) + " -> " + ResultTable.number(during.get(run - 1)) + " tx/s");
		}
		String writes = WRITERS + " threads, 1 row + 1 msg per tx";
		return List.of(
				new Measurement(NAME, PURGE, "scopes/s", purgeRates, sizes.retentionRows() + " eligible, batch "
						+ RetentionSettings.defaults().batchSize()),
				new Measurement(NAME, WITHOUT, "tx/s", without, writes),
				new Measurement(NAME, DURING, "tx/s", during, writes),
				new Measurement(NAME, RATIO, "ratio", ratios, "per run"));
	}

}
