package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.waybill.outbox.spi.ClaimedScope;

/**
 * (7) Scale with table size: with 0, then 1M, then 5M published scopes kept for retention (written
 * with SQL, then vacuumed and analyzed), the time of one claim (the relay's statement, batch of
 * the default size, over a backlog of pending scopes) and the relay's throughput draining that
 * backlog. The drained rows are deleted again after each run, so the kept count stays as stated.
 * At each step with kept rows, also the size of each outbox table and index per million kept scopes.
 */
final class TableScale implements Benchmark {

	static final String NAME = "scale";

	static String claimFigure(int kept) {
		return "claim time, " + label(kept) + " kept";
	}

	static String relayFigure(int kept) {
		return "relay, " + label(kept) + " kept";
	}

	static String sizeFigure(String relation, int kept) {
		return "size per 1M kept, " + relation + ", " + label(kept) + " kept";
	}

	static String label(int kept) {
		if (kept >= 1_000_000 && kept % 1_000_000 == 0) {
			return (kept / 1_000_000) + "M";
		}
		if (kept >= 1_000 && kept % 1_000 == 0) {
			return (kept / 1_000) + "k";
		}
		return Integer.toString(kept);
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		OutboxWiring wiring = context.wiring(NAME);
		Rows rows = new Rows(wiring.schema());
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		int batch = wiring.relaySettings().getBatchSize();
		List<Measurement> results = new ArrayList<>();
		long kept = 0;
		for (int target : sizes.scaleRows()) {
			Timer generating = Timer.start();
			rows.published(target - kept, "1 day");
			kept = target;
			rows.vacuumAnalyze();
			progress.report(label(target) + " kept rows ready in " + ResultTable.number(generating.seconds()) + " s");
			if (target > 0) {
				// What a million kept messages take on disk, each relation apart: the kept rows' cost to the database.
				rows.relationSizes().forEach((relation, bytes) -> results.add(new Measurement(NAME,
						sizeFigure(relation, target), "MB", List.of(bytes / (target / 1e6) / 1e6),
						label(target) + " kept scopes of one message of 64 bytes, after VACUUM")));
			}
			List<Double> claims = new ArrayList<>();
			List<Double> rates = new ArrayList<>();
			for (int run = 1; run <= context.runs(); run++) {
				rows.pending(sizes.scaleBacklog(), 1, queue.exchange());
				rows.vacuumAnalyze();
				claims.add(claimMillis(wiring, sizes.claimSamples(), batch));
				queue.purge();
				rates.add(RelayThroughput.drain(wiring, sizes.scaleBacklog()));
				progress.report(label(target) + " kept, run " + run + ": claim " + ResultTable.number(claims.get(run - 1))
						+ " ms, relay " + ResultTable.number(rates.get(run - 1)) + " msg/s");
				rows.deleteRecentlyPublished();
				queue.purge();
			}
			results.add(new Measurement(NAME, claimFigure(target), "ms", claims,
					"median of " + sizes.claimSamples() + " claims of " + batch + " over " + sizes.scaleBacklog() + " pending"));
			results.add(new Measurement(NAME, relayFigure(target), "msg/s", rates, sizes.scaleBacklog() + " msgs backlog"));
		}
		return results;
	}

	/**
	 * Times {@code samples} claims of {@code batch} scopes, giving each batch back at once, and
	 * returns the median in milliseconds.
	 */
	private static double claimMillis(OutboxWiring wiring, int samples, int batch) {
		List<Double> millis = new ArrayList<>();
		for (int i = 0; i < samples; i++) {
			String owner = "bench-claim-" + i;
			Timer timer = Timer.start();
			List<ClaimedScope> claimed = wiring.store().claim(owner, Duration.ofMinutes(1), batch);
			millis.add(timer.seconds() * 1000);
			if (claimed.size() != batch) {
				throw new IllegalStateException("A claim returned " + claimed.size() + " scopes, expected " + batch);
			}
			List<UUID> ids = claimed.stream().map(ClaimedScope::id).toList();
			wiring.store().release(owner, ids, Duration.ZERO);
		}
		return Stats.median(millis);
	}

}
