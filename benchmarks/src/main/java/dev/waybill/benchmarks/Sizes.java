package dev.waybill.benchmarks;

import java.util.List;

/**
 * How much each benchmark does. {@link #full()} keeps a run of everything within 20 minutes on a
 * 2-core machine; {@link #quick()} checks the harness in a minute or two.
 *
 * @param brokerMessages messages per broker-ceiling run
 * @param relayMessages backlog messages per relay run (for each scope size)
 * @param writeSeconds measured seconds per write-path run
 * @param writeThreads threads running business transactions
 * @param latencyRates offered loads, messages per second
 * @param latencySeconds measured seconds per latency run (after a warm-up)
 * @param warmUpSeconds warm-up before a timed window
 * @param jitWarmUpSeconds the latency benchmark's one warm-up of each side (Waybill, then the floor)
 *        before its first timed run, so that the JIT compiles their code before, not during, the
 *        timed windows
 * @param inboxMessages messages per inbox and bare-consume run
 * @param retentionRows eligible outbox scopes (each with one message) per purge run
 * @param scaleRows published rows kept, per step of the scale benchmark
 * @param scaleBacklog pending messages the relay drains at each step
 * @param claimSamples timed claims per run at each step
 * @param walMessages messages per window of the WAL benchmark, each in its own transaction
 * @param idleStores the stores besides the default one that the stores benchmark relays while
 *        idle, each a schema with Waybill's tables, created once per run of the benchmark
 * @param idleSeconds measured seconds of each idle window of the stores benchmark
 */
public record Sizes(int brokerMessages, int relayMessages, int writeSeconds, int writeThreads, List<Integer> latencyRates,
		int latencySeconds, int warmUpSeconds, int jitWarmUpSeconds, int inboxMessages, int retentionRows, List<Integer> scaleRows,
		int scaleBacklog, int claimSamples, int walMessages, int idleStores, int idleSeconds) {

	public static Sizes full() {
		return new Sizes(50_000, 100_000, 10, 8, List.of(100, 1_000, 5_000), 10, 2, 20, 20_000, 1_000_000,
				List.of(0, 1_000_000, 5_000_000), 20_000, 20, 5_000, 200, 10);
	}

	public static Sizes quick() {
		return new Sizes(5_000, 5_000, 2, 8, List.of(100, 1_000, 5_000), 2, 1, 2, 2_000, 80_000,
				List.of(0, 20_000, 50_000), 2_000, 5, 1_000, 50, 5);
	}

}
