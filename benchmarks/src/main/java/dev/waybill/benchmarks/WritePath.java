package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * (3) Write-path overhead: business transactions that insert one row, with and without publishing
 * one message through the outbox, on several threads, alternating so both see the same machine.
 * No relay runs: this is what the business transaction pays. The floor: the same rows written by
 * one plain JDBC statement in the same transaction, without Waybill (what the database itself costs).
 */
final class WritePath implements Benchmark {

	static final String NAME = "writepath";

	static final String WITHOUT = "1 row insert, no outbox";

	static final String WITH = "1 row insert + @Outbox publish of 1 msg";

	static final String FLOOR = "1 row insert + the outbox rows as plain SQL (database floor)";

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		WriteLoad load = WriteLoad.on(context, NAME);
		OutboxWiring wiring = load.wiring();
		Rows rows = new Rows(wiring.schema());
		int threads = sizes.writeThreads();
		load.run(threads, false, sizes.warmUpSeconds());
		load.run(threads, true, sizes.warmUpSeconds());
		load.run(threads, WriteLoad.Mode.RAW_SQL, sizes.warmUpSeconds());
		List<Double> without = new ArrayList<>();
		List<Double> with = new ArrayList<>();
		List<Double> floor = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			load.truncate();
			rows.truncate();
			without.add(load.run(threads, false, sizes.writeSeconds()));
			load.truncate();
			rows.truncate();
			with.add(load.run(threads, true, sizes.writeSeconds()));
			load.truncate();
			rows.truncate();
			floor.add(load.run(threads, WriteLoad.Mode.RAW_SQL, sizes.writeSeconds()));
			progress.report("run " + run + ": without " + ResultTable.number(without.get(run - 1)) + " tx/s, with "
					+ ResultTable.number(with.get(run - 1)) + " tx/s, database floor "
					+ ResultTable.number(floor.get(run - 1)) + " tx/s");
		}
		String note = threads + " threads, " + sizes.writeSeconds() + " s per run";
		return List.of(new Measurement(NAME, WITHOUT, "tx/s", without, note),
				new Measurement(NAME, WITH, "tx/s", with, note + ", 1 KiB message, relay off"),
				new Measurement(NAME, FLOOR, "tx/s", floor, note + ", the same two rows by a plain JDBC statement, no Waybill"));
	}

}
