package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.RetentionRunner;
import dev.waybill.retention.autoconfigure.WaybillRetentionProperties;

/**
 * (6) Retention: a write load runs continuously while {@link RetentionRunner#runOnce()} with the
 * default settings (paced) purges a backlog of eligible rows (published scopes older than the
 * default 30 days, one message each, written with SQL before the load starts). Measured, in
 * alternating windows without and with the paced purge: the write rate without and with it, and
 * the purge rate; then, in the first run only (a one-off figure, and long), the time a backlog
 * takes, paced and with pacing off (flat out, the old behaviour), the writers running throughout.
 * The two purgers are the auto-configured worker of two applications on the schema, one with the
 * defaults, one with {@code waybill.retention.pacing.enabled=false}; neither runs on its schedule.
 */
final class RetentionPurge implements Benchmark {

	static final String NAME = "retention";

	static final String PACED = "purge under default pacing, eligible scopes (+ their messages)";

	static final String WITHOUT = "write load without purge";

	static final String DURING = "write load during purge";

	static final String RATIO = "write load during / without purge";

	static final String PACED_RATIO = "paced purge rate / write rate";

	static final String PACED_BACKLOG = "backlog purged, default pacing";

	static final String PURGE = "purge flat out (pacing off)";

	static final String DURING_FLAT = "write load during flat-out purge";

	static final String RATIO_FLAT = "write load during flat-out / without purge";

	static final String FLAT_BACKLOG = "backlog purged, flat out";

	static final int WRITERS = 4;

	/** Windows without and with the paced purge, alternating. */
	static final int WINDOW_PAIRS = 5;

	/** The {@code waybill.retention.*} defaults both purgers run with, pacing aside. */
	private static final WaybillRetentionProperties DEFAULTS = new WaybillRetentionProperties();

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		TestSchema schema = context.schema(NAME);
		AtomicLong purged = new AtomicLong();
		List<Double> batchMillis = java.util.Collections.synchronizedList(new ArrayList<>());
		RetentionListener counter = new RetentionListener() {

			@Override
			public void batchCommitted(RetentionResult batch, Duration duration) {
				purged.addAndGet(batch.outboxStates());
				if (batch.outboxStates() > 0) {
					batchMillis.add(duration.toNanos() / 1e6 * 1000 / batch.outboxStates());
				}
			}

		};
		OutboxWiring wiring = context.wiring(schema, (app) -> onDemand(app, counter));
		RetentionRunner paced = wiring.app().bean(RetentionRunner.class);
		RetentionRunner flat = context
			.wiring(schema, (app) -> onDemand(app, counter).property("waybill.retention.pacing.enabled", false))
			.app()
			.bean(RetentionRunner.class);
		WriteLoad load = new WriteLoad(wiring, context.uniqueName(NAME));
		Rows rows = new Rows(schema);
		Figures figures = new Figures();
		int windows = WINDOW_PAIRS;
		double window = Math.max(1, sizes.writeSeconds() / 2.0);
		int alternatingBacklog = (int) Math.max(sizes.retentionRows(),
				windows * window * DEFAULTS.getPacing().getMaxRate() * 1.5);
		for (int run = 1; run <= context.runs(); run++) {
			fill(rows, load, alternatingBacklog);
			batchMillis.clear();
			Alternation alternation;
			try (WriteLoad.Running writers = load.start(WRITERS, true)) {
				Thread.sleep(sizes.warmUpSeconds() * 1000L);
				alternation = alternate(paced, writers, purged, windows, window);
			}
			progress.report("paced batches, ms per 1000 rows: " + spread(batchMillis));
			figures.add(alternation);
			progress.report("run " + run + ": alternating " + windows + " x " + window + " s: writes "
					+ ResultTable.number(alternation.without()) + " tx/s without, " + ResultTable.number(alternation.during())
					+ " with the paced purge at " + ResultTable.number(alternation.purgeRate()) + " scopes/s");
			if (run > 1) {
				continue; // the backlog is a one-off figure, and long: measured in the first run only
			}
			fill(rows, load, sizes.retentionRows());
			Window pacedBacklog;
			try (WriteLoad.Running writers = load.start(WRITERS, true)) {
				Thread.sleep(sizes.warmUpSeconds() * 1000L);
				pacedBacklog = purgeWhileWriting(paced, writers, sizes);
			}
			fill(rows, load, sizes.retentionRows());
			batchMillis.clear();
			Window flatBacklog;
			try (WriteLoad.Running writers = load.start(WRITERS, true)) {
				Thread.sleep(sizes.warmUpSeconds() * 1000L);
				flatBacklog = purgeWhileWriting(flat, writers, sizes);
			}
			progress.report("flat batches, ms per 1000 rows: " + spread(batchMillis));
			figures.add(alternation, pacedBacklog, flatBacklog);
			progress.report("backlog of " + sizes.retentionRows() + ": paced " + ResultTable.number(pacedBacklog.seconds())
					+ " s (" + ResultTable.number(pacedBacklog.purgeRate()) + " scopes/s, writes "
					+ ResultTable.number(pacedBacklog.writeRate()) + " tx/s), flat out " + ResultTable.number(flatBacklog.seconds())
					+ " s (" + ResultTable.number(flatBacklog.purgeRate()) + " scopes/s, writes "
					+ ResultTable.number(flatBacklog.writeRate()) + " tx/s)");
		}
		String writes = WRITERS + " threads, 1 row + 1 msg per tx, continuous";
		String windowsNote = windows + " x " + window + " s windows each, alternating, " + alternatingBacklog + " eligible";
		String backlog = sizes.retentionRows() + " eligible, batch " + DEFAULTS.getBatchSize() + ", writers running";
		String pacingNote = "max-rate " + DEFAULTS.getPacing().getMaxRate() + ", min-rate "
				+ DEFAULTS.getPacing().getMinRate() + " rows/s";
		return List.of(new Measurement(NAME, WITHOUT, "tx/s", figures.without, writes + ", " + windowsNote),
				new Measurement(NAME, DURING, "tx/s", figures.during, writes + ", default pacing, " + windowsNote),
				new Measurement(NAME, RATIO, "ratio", figures.ratio, "default pacing, per run"),
				new Measurement(NAME, PACED, "scopes/s", figures.pacedRate, "the same windows, " + pacingNote),
				new Measurement(NAME, PACED_RATIO, "ratio", figures.pacedOverWrites, "per run, against the writes during it"),
				new Measurement(NAME, PACED_BACKLOG, "s", figures.pacedBacklog, backlog + ", first run only"),
				new Measurement(NAME, PURGE, "scopes/s", figures.flatRate, backlog + ", whole backlog, first run only"),
				new Measurement(NAME, DURING_FLAT, "tx/s", figures.duringFlat, writes + ", whole flat-out purge, first run only"),
				new Measurement(NAME, RATIO_FLAT, "ratio", figures.ratioFlat, "against the first run's alternating windows without"),
				new Measurement(NAME, FLAT_BACKLOG, "s", figures.flatBacklog, backlog + ", first run only"));
	}

	/**
	 * The retention worker with the default settings, purging only when the benchmark runs it: a
	 * scheduled run would purge the backlog outside the timed windows.
	 */
	private static WaybillApp.Builder onDemand(WaybillApp.Builder app, RetentionListener counter) {
		return app.property(WaybillRetentionProperties.ENABLED_PROPERTY, true)
			.property("waybill.retention.interval", "365d")
			.bean(RetentionListener.class, () -> counter);
	}

	private static String spread(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		if (sorted.isEmpty()) {
			return "none";
		}
		return "n " + sorted.size() + ", min " + ResultTable.number(sorted.get(0)) + ", p10 "
				+ ResultTable.number(sorted.get(sorted.size() / 10)) + ", p50 " + ResultTable.number(sorted.get(sorted.size() / 2))
				+ ", p90 " + ResultTable.number(sorted.get(sorted.size() * 9 / 10)) + ", max "
				+ ResultTable.number(sorted.get(sorted.size() - 1));
	}

	private static void fill(Rows rows, WriteLoad load, int scopes) {
		rows.truncate();
		load.truncate();
		rows.published(scopes, "31 days");
		rows.vacuumAnalyze();
	}

	/**
	 * Alternates windows without and with the paced purge while the writers run (so that the
	 * machine's drift falls on both alike): each window with the purge starts a run and ends it by
	 * interrupting it (a run ends at its next pause when interrupted).
	 */
	private static Alternation alternate(RetentionRunner worker, WriteLoad.Running writers, AtomicLong purged,
			int windows, double seconds) throws Exception {
		long writesWithout = 0;
		long writesDuring = 0;
		long scopes = 0;
		double timeWithout = 0;
		double timeDuring = 0;
		for (int i = 0; i < windows; i++) {
			long before = writers.committed();
			Timer timer = Timer.start();
			Thread.sleep((long) (seconds * 1000));
			writesWithout += writers.committed() - before;
			timeWithout += timer.seconds();
			CompletableFuture<RetentionResult> result = new CompletableFuture<>();
			Thread purge = new Thread(() -> {
				try {
					result.complete(worker.runOnce());
				}
				catch (RuntimeException ex) {
					result.completeExceptionally(ex);
				}
			}, "bench-retention");
			long purgedBefore = purged.get();
			before = writers.committed();
			timer = Timer.start();
			purge.start();
			Thread.sleep((long) (seconds * 1000));
			writesDuring += writers.committed() - before;
			scopes += purged.get() - purgedBefore;
			timeDuring += timer.seconds();
			if (result.isDone()) {
				throw new IllegalStateException("The paced purge ran out of eligible rows within a window");
			}
			purge.interrupt();
			result.get();
		}
		return new Alternation(writesWithout / timeWithout, writesDuring / timeDuring, scopes / timeDuring);
	}

	/** Purges the whole backlog while the writers run. */
	private static Window purgeWhileWriting(RetentionRunner worker, WriteLoad.Running writers, Sizes sizes) {
		long writesBefore = writers.committed();
		Timer timer = Timer.start();
		RetentionResult result = worker.runOnce();
		double seconds = timer.seconds();
		if (result.outboxStates() < sizes.retentionRows()) {
			throw new IllegalStateException("The purge removed " + result.outboxStates() + " of " + sizes.retentionRows()
					+ " eligible scopes");
		}
		return new Window((writers.committed() - writesBefore) / seconds, result.outboxStates() / seconds, seconds);
	}

	private record Alternation(double without, double during, double purgeRate) {
	}

	private record Window(double writeRate, double purgeRate, double seconds) {
	}

	private static final class Figures {

		final List<Double> without = new ArrayList<>();

		final List<Double> during = new ArrayList<>();

		final List<Double> ratio = new ArrayList<>();

		final List<Double> pacedRate = new ArrayList<>();

		final List<Double> pacedOverWrites = new ArrayList<>();

		final List<Double> pacedBacklog = new ArrayList<>();

		final List<Double> flatRate = new ArrayList<>();

		final List<Double> duringFlat = new ArrayList<>();

		final List<Double> ratioFlat = new ArrayList<>();

		final List<Double> flatBacklog = new ArrayList<>();

		void add(Alternation alternation) {
			this.without.add(alternation.without());
			this.during.add(alternation.during());
			this.ratio.add(alternation.during() / alternation.without());
			this.pacedRate.add(alternation.purgeRate());
			this.pacedOverWrites.add(alternation.purgeRate() / alternation.during());
		}

		void add(Alternation alternation, Window paced, Window flat) {
			this.pacedBacklog.add(paced.seconds());
			this.flatRate.add(flat.purgeRate());
			this.duringFlat.add(flat.writeRate());
			this.ratioFlat.add(flat.writeRate() / alternation.without());
			this.flatBacklog.add(flat.seconds());
		}

	}

}
