package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.RetentionRunner;
import dev.waybill.retention.autoconfigure.WaybillRetentionProperties;

/**
 * (10) WAL: what the database writes per message, on a {@link PrivatePostgres} of its own (WAL is
 * cluster-wide), with N messages of 1 KiB, each in its own business transaction. Each run measures,
 * with a {@link WorkMeter}: the floor (a 1 KiB row with a bigint primary key inserted in its own
 * transaction, then deleted in batches of 100); Waybill's write path with the relay paused, then
 * the relay draining that backlog by its claim; the write path with the relay running, which
 * relays by direct dispatch; and retention's purge of those published rows. The measured tables
 * have autovacuum off, so that no vacuum writes into a window, and each group of windows starts on
 * emptied tables after a {@code CHECKPOINT}.
 */
final class WalLifecycle implements Benchmark {

	static final String NAME = "wal";

	static final String FLOOR = "floor (1 KiB row inserted, deleted in batches of 100)";

	static final String WRITE = "write path, relay paused";

	static final String CLAIMED = "write + relay, backlog claimed";

	static final String DIRECT = "write + relay, direct dispatch";

	static final String PURGE = "retention purge of the published rows";

	static final String LIFECYCLE = "whole lifecycle (write + direct relay + purge)";

	static final int WRITERS = 4;

	private static final int DELETE_BATCH = 100;

	static String walFigure(String phase) {
		return "WAL, " + phase;
	}

	static String ratioFigure(String phase) {
		return "WAL / floor, " + phase;
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().walMessages();
		PrivatePostgres postgres = context.register(PrivatePostgres.start("wal"));
		progress.report("isolated on " + postgres + " (initdb, trust, default settings, fsync on); "
				+ "autovacuum off on the measured tables; CHECKPOINT before each group of windows");
		TestSchema floorSchema = context.register(TestSchema.create(postgres.database(), "wal_floor"));
		FloorTable floor = new FloorTable(floorSchema);
		TestSchema schema = context.register(TestSchema.withWaybillTables(postgres.database(), "bench_wal"));
		OutboxWiring wiring = context.wiring(schema, (app) -> purgingOnDemand(app.rabbit(context.rabbit())));
		RetentionRunner retention = wiring.app().bean(RetentionRunner.class);
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		Rows rows = new Rows(schema);
		schema.execute(FloorTable.withoutAutovacuum(schema.tables().qualifiedOutboxState()));
		schema.execute(FloorTable.withoutAutovacuum(schema.tables().qualifiedOutboxMessage()));
		schema.execute(FloorTable.withoutAutovacuum(schema.tables().qualifiedInboxState()));
		MessageWriters writers = new MessageWriters(wiring, queue.exchange(), WRITERS);
		Map<String, List<DatabaseWork>> work = new LinkedHashMap<>();
		try (WorkMeter meter = new WorkMeter(postgres.database())) {
			for (int run = 1; run <= context.runs(); run++) {
				floor.truncate();
				checkpoint(schema);
				WorkMeter.Reading start = meter.read(floorSchema.name());
				floor.insert(messages, WRITERS);
				floor.deleteInBatches(DELETE_BATCH);
				add(work, FLOOR, meter.between(start, meter.read(floorSchema.name())), messages, progress, run);

				reset(rows, queue, schema);
				start = meter.read(schema.name());
				writers.publish(messages);
				WorkMeter.Reading written = meter.read(schema.name());
				DatabaseWork write = add(work, WRITE, meter.between(start, written), messages, progress, run);
				RelayThroughput.drain(wiring, messages);
				add(work, CLAIMED, write.plus(meter.between(written, meter.read(schema.name()))), messages, progress, run);

				reset(rows, queue, schema);
				start = meter.read(schema.name());
				try (OutboxWiring.RunningRelay relay = wiring.startRelay((message, at) -> {
				})) {
					writers.publish(messages);
					relay.awaitPublished(messages, Duration.ofSeconds(120 + messages / 100));
				}
				WorkMeter.Reading relayed = meter.read(schema.name());
				DatabaseWork direct = add(work, DIRECT, meter.between(start, relayed), messages, progress, run);
				purge(retention, messages);
				DatabaseWork purge = add(work, PURGE, meter.between(relayed, meter.read(schema.name())), messages, progress,
						run);
				add(work, LIFECYCLE, direct.plus(purge), messages, progress, run);
			}
		}
		return measurements(work, messages);
	}

	/**
	 * The retention worker, run by the benchmark only, flat out, and purging what was published more
	 * than a second ago (the inbox's duplicate window shortened to allow it): the meter's wait before
	 * each window makes every relayed row eligible.
	 */
	private static WaybillApp.Builder purgingOnDemand(WaybillApp.Builder app) {
		return app.property(WaybillRetentionProperties.ENABLED_PROPERTY, true)
			.property("waybill.retention.interval", "365d")
			.property("waybill.retention.completed-after", "1s")
			.property(WaybillRetentionProperties.DUPLICATE_DETECTION_WINDOW_PROPERTY, "1s")
			.property("waybill.retention.pacing.enabled", false);
	}

	private static void purge(RetentionRunner retention, int messages) {
		RetentionResult result = retention.runOnce();
		if (result.outboxStates() != messages) {
			throw new IllegalStateException("The purge removed " + result.outboxStates() + " of " + messages + " scopes");
		}
	}

	private static void reset(Rows rows, BrokerQueue queue, TestSchema schema) {
		rows.truncate();
		queue.purge();
		checkpoint(schema);
	}

	/**
	 * Writes the dirty pages out, so that a window starts on a fresh checkpoint and a timed one
	 * (every 5 minutes by default) does not fall into it.
	 */
	private static void checkpoint(TestSchema schema) {
		schema.execute("CHECKPOINT");
	}

	private static DatabaseWork add(Map<String, List<DatabaseWork>> work, String phase, DatabaseWork measured,
			int messages, Progress progress, int run) {
		work.computeIfAbsent(phase, (key) -> new ArrayList<>()).add(measured);
		progress.report("run " + run + ", " + phase + ": " + measured.perMessage(messages));
		return measured;
	}

	private static List<Measurement> measurements(Map<String, List<DatabaseWork>> work, int messages) {
		String note = messages + " msgs of 1 KiB, 1 per tx, " + WRITERS + " writer threads, private PostgreSQL";
		List<DatabaseWork> floor = work.get(FLOOR);
		List<Measurement> results = new ArrayList<>();
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			results.add(perMessage(walFigure(phase.getKey()), "bytes/msg", phase.getValue(), messages,
					DatabaseWork::walBytes, note));
		}
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			if (!phase.getKey().equals(FLOOR)) {
				List<Double> ratios = new ArrayList<>();
				for (int run = 0; run < floor.size(); run++) {
					ratios.add((double) phase.getValue().get(run).walBytes() / floor.get(run).walBytes());
				}
				results.add(new Measurement(NAME, ratioFigure(phase.getKey()), "ratio", ratios, "per run"));
			}
		}
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			results.add(perMessage("commits, " + phase.getKey(), "commits/msg", phase.getValue(), messages,
					DatabaseWork::commits, "xact_commit of the database, every session"));
		}
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			results.add(perMessage("row changes, " + phase.getKey(), "rows/msg", phase.getValue(), messages,
					DatabaseWork::rowChanges, "n_tup_ins + n_tup_upd + n_tup_del"));
		}
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			results.add(perMessage("index entries (at most), " + phase.getKey(), "entries/msg", phase.getValue(), messages,
					DatabaseWork::indexEntries, "(inserted + non-HOT updated rows) x indexes of the table"));
		}
		for (Map.Entry<String, List<DatabaseWork>> phase : work.entrySet()) {
			results.add(new Measurement(NAME, "dead rows left per 1M messages, " + phase.getKey(), "rows",
					phase.getValue().stream().map((run) -> run.deadTuples() * 1e6 / messages).toList(),
					"n_dead_tup change, autovacuum off on the measured tables"));
		}
		return results;
	}

	private static Measurement perMessage(String figure, String unit, List<DatabaseWork> runs, int messages,
			ToLongFunction<DatabaseWork> value, String note) {
		return new Measurement(NAME, figure, unit,
				runs.stream().map((work) -> (double) value.applyAsLong(work) / messages).toList(), note);
	}

}
