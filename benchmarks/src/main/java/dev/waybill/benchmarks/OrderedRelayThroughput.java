package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Relay throughput with ordering keys: the same backlog of committed one-message
 * scopes drained unordered, with 10,000 distinct ordering keys, and skewed (10 keys take half the
 * messages, the other half spread over 10,000 keys), over 10 keys and over one key, interleaved
 * in every run so they share the machine's state.
 */
final class OrderedRelayThroughput implements Benchmark {

	static final String NAME = "ordering";

	static final String UNORDERED = "backlog drained, no ordering key";

	static final String KEYS_10K = "backlog drained, 10,000 ordering keys";

	static final String SKEWED = "backlog drained, skewed: 10 keys take half";

	static final String KEYS_10 = "backlog drained, 10 ordering keys";

	static final String ONE_KEY = "backlog drained, 1 ordering key";

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
		Map<String, List<Double>> rates = new LinkedHashMap<>();
		cases.keySet().forEach((figure) -> rates.put(figure, new ArrayList<>()));
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
			progress.report(report.toString());
		}
		String note = messages + " msgs backlog in scopes of 1, default relay ("
				+ wiring.relaySettings().getWorkers() + " workers, batch " + wiring.relaySettings().getBatchSize()
				+ ")";
		List<Measurement> results = new ArrayList<>();
		rates.forEach((figure, values) -> results.add(new Measurement(NAME, figure, "msg/s", values, note)));
		return results;
	}

}
