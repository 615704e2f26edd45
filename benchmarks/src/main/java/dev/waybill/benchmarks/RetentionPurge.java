package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.internal.RetentionPacing;
import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.internal.RetentionWorker;

/**
 * (6) Retention: a write load runs continuously while one {@link RetentionWorker#runOnce()} with the
 * default settings (paced) purges a backlog of eligible rows (published scopes older than the
 * default 30 days, one message each, written with SQL before the load starts). Measured: the write
 * rate without the purge (a window before it and one after it, averaged), the write rate and the
 * purge rate in a window while the purge runs (after a warm-up), and the time the whole backlog
 * takes. Then the same with pacing off (flat out), for comparison.
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

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		WriteLoad load = WriteLoad.on(context, NAME);
		OutboxWiring wiring = load.wiring();
		Rows rows = new Rows(wiring.schema());
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
		RetentionWorker paced = new RetentionWorker(wiring.schema().dataSource(), wiring.schema().tables(),
				RetentionSettings.defaults(), counter);
		RetentionWorker flat = new RetentionWorker(wiring.schema().dataSource(), wiring.schema().tables(),
				RetentionSettings.defaults(), counter);
		flat.setPacing(RetentionPacing.OFF);
		Figures figures = new Figures();
		for (int run = 1; run <= context.runs(); run++) {
			fill(rows, load, sizes);
			double without;
			Window pacedWindow;
			batchMillis.clear();
			try (WriteLoad.Running writers = load.start(WRITERS, true)) {
				Thread.sleep(sizes.warmUpSeconds() * 1000L);
				double before = writers.rateOver(sizes.writeSeconds());
				pacedWindow = purgeWhileWriting(paced, writers, purged, sizes);
				double after = writers.rateOver(sizes.writeSeconds());
				without = (before + after) / 2;
			}
			progress.report("paced batches, ms per 1000 rows: " + spread(batchMillis));
			fill(rows, load, sizes);
			batchMillis.clear();
			Window flatWindow;
			try (WriteLoad.Running writers = load.start(WRITERS, true)) {
				Thread.sleep(sizes.warmUpSeconds() * 1000L);
				flatWindow = purgeWhileWriting(flat, writers, purged, sizes);
			}
			progress.report("flat batches, ms per 1000 rows: " + spread(batchMillis));
			figures.add(without, pacedWindow, flatWindow);
			progress.report("run " + run + ": writes " + ResultTable.number(without) + " tx/s without purge; paced purge "
					+ ResultTable.number(pacedWindow.purgeRate()) + " scopes/s, writes " + ResultTable.number(pacedWindow.writeRate())
					+ " tx/s, backlog " + ResultTable.number(pacedWindow.backlogSeconds()) + " s; flat out "
					+ ResultTable.number(flatWindow.purgeRate()) + " scopes/s, writes " + ResultTable.number(flatWindow.writeRate())
					+ " tx/s, backlog " + ResultTable.number(flatWindow.backlogSeconds()) + " s");
		}
		String writes = WRITERS + " threads, 1 row + 1 msg per tx, continuous";
		String backlog = sizes.retentionRows() + " eligible, batch " + RetentionSettings.defaults().batchSize();
		RetentionPacing pacing = RetentionPacing.defaults();
		String pacingNote = "max-rate " + pacing.maxRate() + ", min-rate " + pacing.minRate() + " rows/s";
		return List.of(new Measurement(NAME, WITHOUT, "tx/s", figures.without, writes + ", " + sizes.writeSeconds()
				+ " s before + after the purge"),
				new Measurement(NAME, DURING, "tx/s", figures.during, writes + ", " + sizes.writeSeconds()
						+ " s window during the paced purge"),
				new Measurement(NAME, RATIO, "ratio", figures.ratio, "default pacing, per run"),
				new Measurement(NAME, PACED, "scopes/s", figures.pacedRate, backlog + ", same window, " + pacingNote),
				new Measurement(NAME, PACED_RATIO, "ratio", figures.pacedOverWrites, "per run, against the writes during it"),
				new Measurement(NAME, PACED_BACKLOG, "s", figures.pacedBacklog, backlog + ", writers running"),
				new Measurement(NAME, PURGE, "scopes/s", figures.flatRate, backlog + ", whole backlog"),
				new Measurement(NAME, DURING_FLAT, "tx/s", figures.duringFlat, writes + ", whole flat-out purge"),
				new Measurement(NAME, RATIO_FLAT, "ratio", figures.ratioFlat, "per run, the old behaviour"),
				new Measurement(NAME, FLAT_BACKLOG, "s", figures.flatBacklog, backlog + ", writers running"));
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

	private static void fill(Rows rows, WriteLoad load, Sizes sizes) {
		rows.truncate();
		load.truncate();
		rows.published(sizes.retentionRows(), "31 days");
		rows.vacuumAnalyze();
	}

	/**
	 * Starts the purge while the writers run; with pacing, times a window after the warm-up
	 * (writes and purged scopes), then waits for the backlog to be gone. Flat out, the window is
	 * the whole purge (it is short).
	 */
	private static Window purgeWhileWriting(RetentionWorker worker, WriteLoad.Running writers, AtomicLong purged,
			Sizes sizes) throws Exception {
		purged.set(0);
		Timer backlog = Timer.start();
		long writesAtStart = writers.committed();
		CompletableFuture<RetentionResult> purge = CompletableFuture.supplyAsync(worker::runOnce);
		double writeRate;
		double purgeRate;
		if (worker.pacing().enabled()) {
			Thread.sleep(sizes.warmUpSeconds() * 1000L);
			long purgedBefore = purged.get();
			long writesBefore = writers.committed();
			Timer window = Timer.start();
			Thread.sleep(sizes.writeSeconds() * 1000L);
			purgeRate = window.rate(purged.get() - purgedBefore);
			writeRate = window.rate(writers.committed() - writesBefore);
			if (purge.isDone()) {
				throw new IllegalStateException("The paced purge ended before its measured window did; the backlog of "
						+ sizes.retentionRows() + " is too small for it");
			}
		}
		else {
			purgeRate = 0;
			writeRate = 0;
		}
		RetentionResult result = purge.get();
		double seconds = backlog.seconds();
		if (result.outboxStates() < sizes.retentionRows()) {
			throw new IllegalStateException("The purge removed " + result.outboxStates() + " of " + sizes.retentionRows()
					+ " eligible scopes");
		}
		if (!worker.pacing().enabled()) {
			purgeRate = result.outboxStates() / seconds;
			writeRate = (writers.committed() - writesAtStart) / seconds;
		}
		return new Window(writeRate, purgeRate, seconds);
	}

	private record Window(double writeRate, double purgeRate, double backlogSeconds) {
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

		void add(double without, Window paced, Window flat) {
			this.without.add(without);
			this.during.add(paced.writeRate());
			this.ratio.add(paced.writeRate() / without);
			this.pacedRate.add(paced.purgeRate());
			this.pacedOverWrites.add(paced.purgeRate() / paced.writeRate());
			this.pacedBacklog.add(paced.backlogSeconds());
			this.flatRate.add(flat.purgeRate());
			this.duringFlat.add(flat.writeRate());
			this.ratioFlat.add(flat.writeRate() / without);
			this.flatBacklog.add(flat.backlogSeconds());
		}

	}

}
