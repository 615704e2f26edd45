package dev.waybill.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * (2) Relay throughput: a backlog of committed messages (1 KiB, in scopes of 1 and of 10) is
 * written with SQL outside the timed window, while the relay is paused; then the relay with the
 * default settings resumes and the clock runs until every message is confirmed by the broker and
 * marked published.
 */
final class RelayThroughput implements Benchmark {

	static final String NAME = "relay";

	static final List<Integer> SCOPE_SIZES = List.of(1, 10);

	static String figure(int scopeSize) {
		return "backlog drained, scopes of " + scopeSize;
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().relayMessages();
		OutboxWiring wiring = context.wiring(NAME);
		Rows rows = new Rows(wiring.schema());
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		List<Measurement> results = new ArrayList<>();
		for (int scopeSize : SCOPE_SIZES) {
			List<Double> rates = new ArrayList<>();
			for (int run = 1; run <= context.runs(); run++) {
				rows.truncate();
				rows.pending(messages, scopeSize, queue.exchange());
				rows.vacuumAnalyze();
				queue.purge();
				rates.add(drain(wiring, messages));
				progress.report("scopes of " + scopeSize + ", run " + run + ": "
						+ ResultTable.number(rates.get(rates.size() - 1)) + " msg/s");
				queue.purge();
			}
			results.add(new Measurement(NAME, figure(scopeSize), "msg/s", rates,
					messages + " msgs backlog, default relay (" + wiring.relaySettings().getWorkers() + " workers, batch "
							+ wiring.relaySettings().getBatchSize() + ")"));
		}
		return results;
	}

	/**
	 * Resumes the relay, waits until it published {@code messages}, and returns messages/s.
	 */
	static double drain(OutboxWiring wiring, long messages) throws InterruptedException {
		Timer timer = Timer.start();
		try (OutboxWiring.RunningRelay relay = wiring.startRelay((message, at) -> {
		})) {
			relay.awaitPublished(messages, Duration.ofSeconds(120 + messages / 100));
			return timer.rate(messages);
		}
	}

}
