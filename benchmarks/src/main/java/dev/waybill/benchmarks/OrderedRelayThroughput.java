package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.test.TestSchema;

/**
 * Relay throughput with ordering keys: the same backlog of committed one-message
 * scopes drained unordered, with 10,000 distinct ordering keys, and skewed (10 keys take half the
 * messages, the other half spread over 10,000 keys), over 10 keys and over one key, interleaved
 * in every run so they share the machine's state.
 * <p>
 * Then end to end: the same backlog, unordered and of one key, relayed to a queue that Waybill's
 * receive endpoint (its defaults: partitioned by ordering key, batched) consumes at the same time
 * through the inbox, with a handler that counts; messages/s from the start to the last handled.
 */
final class OrderedRelayThroughput implements Benchmark {

	static final String NAME = "ordering";

	static final String UNORDERED = "backlog drained, no ordering key";

	static final String KEYS_10K = "backlog drained, 10,000 ordering keys";

	static final String SKEWED = "backlog drained, skewed: 10 keys take half";

	static final String KEYS_10 = "backlog drained, 10 ordering keys";

	static final String ONE_KEY = "backlog drained, 1 ordering key";

	static final String END_TO_END_UNORDERED = "end to end (relay + inbox), no ordering key";

	static final String END_TO_END_ONE_KEY = "end to end (relay + inbox), 1 ordering key";

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().relayMessages();
		OutboxWiring wiring = context.wiring(NAME);
		Rows rows = new Rows(wiring.schema());
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		Map<String, String> cases = new LinkedHashMap<>();
		cases.put(UNORDERED, null);
		cases.put(KEYS_10K, "'key-' || (i % 10000)");
		cases.put(SKEWED, "CASE WHEN i % 2 = 0 THEN 'hot-' || ((i / 2) % 10) ELSE 'cold-' || (i % 10000) END");
		cases.put(KEYS_10, "'key-' || (i % 10)");
		cases.put(ONE_KEY, "'hot'");
		Map<String, String> endToEnd = new LinkedHashMap<>();
		endToEnd.put(END_TO_END_UNORDERED, null);
		endToEnd.put(END_TO_END_ONE_KEY, "'hot'");
		EndToEnd consumed = new EndToEnd(context);
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		cases.keySet().forEach((figure) -> rates.put(figure, new ArrayList<>()));
		endToEnd.keySet().forEach((figure) -> rates.put(figure, new ArrayList<>()));
		for (int run = 1; run <= context.runs(); run++) {
			StringBuilder report = new StringBuilder("run " + run + ":");
			for (Map.Entry<String, String> entry : cases.entrySet()) {
				rows.truncate();
				if (entry.getValue() == null) {
					rows.pending(messages, 1, queue.exchange());
				}
				else {
					rows.pendingKeyed(messages, entry.getValue(), queue.exchange());
				}
				rows.vacuumAnalyze();
				queue.purge();
				double rate = RelayThroughput.drain(wiring, messages);
				rates.get(entry.getKey()).add(rate);
				report.append(" ").append(entry.getKey().replace("backlog drained, ", "")).append(" ")
					.append(ResultTable.number(rate)).append(" msg/s;");
				queue.purge();
			}
			for (Map.Entry<String, String> entry : endToEnd.entrySet()) {
				double rate = consumed.run(messages, entry.getValue());
				rates.get(entry.getKey()).add(rate);
				report.append(" ").append(entry.getKey()).append(" ").append(ResultTable.number(rate)).append(" msg/s;");
			}
			progress.report(report.toString());
		}
		String note = messages + " msgs backlog in scopes of 1, default relay ("
				+ wiring.relaySettings().getWorkers() + " workers, batch " + wiring.relaySettings().getBatchSize()
				+ ")";
		List<Measurement> results = new ArrayList<>();
		rates.forEach((figure, values) -> results.add(new Measurement(NAME, figure, "msg/s", values,
				endToEnd.containsKey(figure) ? note + ", consumed by the default receive endpoint" : note)));
		return results;
	}

	/** The relay and a receive endpoint of one application, on a schema and queue of their own. */
	private static final class EndToEnd {

		private final Rows rows;

		private final BrokerQueue queue;

		private final AtomicLong handled = new AtomicLong();

		private final OutboxWiring wiring;

		EndToEnd(BenchContext context) {
			TestSchema schema = context.schema(NAME + "_e2e");
			this.rows = new Rows(schema);
			// The message type is the destination's name (see Rows): the consumer handles BenchOrder's.
			this.queue = context.queue(BenchOrder.TYPE);
			ReceiveEndpoint endpoint = ReceiveEndpoint.on(this.queue.name())
				.handle(BenchOrder.class, (order, messageContext) -> this.handled.incrementAndGet());
			this.queue.alsoDelete(endpoint.errorQueue());
			this.wiring = context.wiring(schema, (app) -> app.rabbit(context.rabbit())
				.bean(ConsumerRegistry.class, () -> ConsumerRegistry.ofEndpoints(List.of(endpoint))));
		}

		/** Relays and consumes a backlog of one-message scopes, keyed as {@code keyOf} says or unordered. */
		double run(int messages, String keyOf) throws InterruptedException {
			this.rows.truncate();
			if (keyOf == null) {
				this.rows.pending(messages, 1, this.queue.exchange());
			}
			else {
				this.rows.pendingKeyed(messages, keyOf, this.queue.exchange());
			}
			this.rows.vacuumAnalyze();
			this.queue.purge();
			this.handled.set(0);
			Timer timer = Timer.start();
			try (OutboxWiring.Consuming consuming = this.wiring.startConsuming();
					OutboxWiring.RunningRelay relay = this.wiring.startRelay((message, at) -> {
					})) {
				InboxThroughput.await(this.handled, messages);
				return timer.rate(messages);
			}
		}

	}

}
