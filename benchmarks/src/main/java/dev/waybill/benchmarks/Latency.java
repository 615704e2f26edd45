package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongFunction;

import com.rabbitmq.client.Connection;

import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;

/**
 * (4) Latency from commit to broker confirm at steady offered loads, with an open-loop generator
 * ({@link OpenLoopGenerator}): each send is a business transaction inserting one row and
 * publishing one 1 KiB message through the outbox. The commit
 * time is taken when the transaction has committed (a map keyed by message id); the confirm time is
 * the one the relay reports for the scope ({@code RelayListener.published}: when the broker's last
 * confirm for it arrived). Commits in the first {@link Sizes#warmUpSeconds()} of each run are not
 * counted. The floor ({@link BareLatency}) runs the same business transactions at the same rate on
 * the same sender threads without the outbox, each followed by a bare publish: commit to confirm.
 * <p>
 * Each message's latency is also split at its claim (commit to claim start, claim start to the
 * claim's return) and after it, with a timing view of the relay's transport
 * ({@link TimedTransport}): claim return to the relay's publish call, the call itself (to the
 * message written on the broker's socket), and publish return to confirm (the broker's share);
 * and confirm to marked published (when the relay reports the scope, after its mark).
 * {@code -Dwaybill.bench.latency.canary=<msg/s>} also runs a {@link ConfirmCanary}, a bare
 * publisher at that rate during each Waybill run, whose publish return to confirm is what the
 * broker gives any publisher under that run's load.
 * <p>
 * At {@link #ONE_KEY_RATE} each run also offers the same load with every message of one ordering
 * key, right after the unordered one: keyed messages are claimed, not dispatched directly, and a
 * key's next run of scopes only once the previous run was confirmed and marked published. Its
 * figures are named with {@link #ONE_KEY} before the percentile.
 */
final class Latency implements Benchmark {

	static final String NAME = "latency";

	static final int SENDERS = 8;

	/** The floor's figures: a bare publisher after each business transaction, at the same rate. */
	static final String FLOOR = "floor (bare broker under write load) ";

	/** The figures of the case where every message has the same ordering key. */
	static final String ONE_KEY = "1 ordering key ";

	/** The figure of the one-key case's writers alone: under the key's lock, without the outbox. */
	static final String WRITERS_ALONE = "writers alone (no outbox) achieved";

	/** The one rate at which the one-key case runs, beside the unordered case. */
	static final int ONE_KEY_RATE = 1_000;

	private static final String HOT_KEY = "hot";

	static String figure(String what, int rate) {
		return what + " @ " + String.format(java.util.Locale.ROOT, "%,d", rate) + " msg/s";
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		Sizes sizes = context.sizes();
		// Timing views of the relay's store and transport, which the application's beans get.
		AtomicReference<TimedStore> timedStore = new AtomicReference<>();
		AtomicReference<TimedTransport> timedTransport = new AtomicReference<>();
		OutboxWiring wiring = context.wiring(context.schema(NAME),
				(app) -> app.rabbit(context.rabbit())
					.view(OutboxStore.class, (store) -> timed(timedStore, new TimedStore(store)))
					.view(Transport.class, (transport) -> timed(timedTransport, new TimedTransport(transport))));
		BrokerQueue queue = context.queue(context.uniqueName(NAME));
		WriteLoad business = new WriteLoad(wiring, queue.exchange());
		Map<UUID, Instant> confirmed = new ConcurrentHashMap<>();
		// Messages the relay reported published twice (at-least-once allows it; it should be rare).
		AtomicLong duplicates = new AtomicLong();
		// When the relay claimed each message: its lease started lease-duration before it ends.
		Map<UUID, Instant> claimed = new ConcurrentHashMap<>();
		Duration lease = wiring.relaySettings().getLeaseDuration();
		// When each claim returned to the relay: splits claim to confirm at the end of the claim.
		TimedStore store = timedStore.get();
		Map<UUID, Instant> claimReturned = store.claimReturned();
		// When the relay called the channel's publish for each message, and when that call returned.
		Map<UUID, Instant> publishCalled = timedTransport.get().publishCalled();
		Map<UUID, Instant> publishReturned = timedTransport.get().publishReturned();
		// When the relay had marked each message's scope published (it reports the scope then): a
		// key's next run is claimed only after that.
		Map<UUID, Instant> marked = new ConcurrentHashMap<>();
		// The commit notifications sent, as other instances' relays hear them.
		NotificationCounter notifier = context.register(new NotificationCounter(context.postgres(), wiring.schema()));
		OutboxWiring.RunningRelay relay = context.register(wiring.startRelayOfScopes((scope, at) -> {
			for (OutboxMessage message : scope.messages()) {
				claimed.put(message.messageId(), scope.leaseUntil().minus(lease));
				marked.put(message.messageId(), Instant.now());
				Instant before = confirmed.put(message.messageId(), at);
				if (before != null && duplicates.incrementAndGet() <= 3) {
					System.err.println("Reported published twice: message " + message.messageId() + " attempts " + scope.attempts() + " owner "
							+ scope.leaseOwner() + " first " + before + " again " + at);
				}
			}
		}));
		// -Dwaybill.bench.latency.canary=<msg/s> also runs a bare publisher at that rate during each
		// Waybill run: the broker's publish-to-confirm for any publisher under that run's load.
		int canaryRate = Integer.getInteger("waybill.bench.latency.canary", 0);
		TransactionTemplate transactions = wiring.transactions();
		Connection broker = context.register(context.rabbit().connect());
		// The canary's own connection, so that it shares one with neither the relay nor the floor.
		CpuMeter cpu = new CpuMeter(wiring.schema().dataSource());
		Connection canaryConnection = (canaryRate > 0) ? context.register(context.rabbit().connect()) : null;
		List<Measurement> results = new ArrayList<>();
		Map<Integer, Map<String, List<Double>>> perRate = new LinkedHashMap<>();
		// -Dwaybill.bench.latency.ab=true alternates claims committed before the publish (A, as
		// before) and overlapped with it (B) within each run, for a comparison on a busy machine.
		boolean ab = Boolean.getBoolean("waybill.bench.latency.ab");
		// The JIT: run cold, the first timed runs measured code being compiled, on the cores that
		// code needed (the compiler threads took ~40% of a core for the first ~25 s of load), while the
		// floor, run after them in this JVM, found the code it shares with Waybill compiled. So each side
		// first runs for jitWarmUpSeconds, untimed, at the highest of its rates up to 1,000 msg/s.
		// One business transaction: a row and a message through the outbox, unordered or of the given
		// ordering key (null: none); returns the message's id.
		Function<String, LongFunction<UUID>> sender = (key) -> (index) -> business.sendOrder(index, key);
		// Forgets what the relay reported of the messages so far, and empties the queue.
		Runnable forget = () -> {
			confirmed.clear();
			claimed.clear();
			claimReturned.clear();
			publishCalled.clear();
			publishReturned.clear();
			marked.clear();
			queue.purge();
		};
		int warmUpRate = rates(sizes).stream().filter((rate) -> rate <= 1_000).max(Integer::compare).orElse(100);
		cpu.start();
		long warmUpSends = (long) warmUpRate * sizes.jitWarmUpSeconds();
		long publishedBefore = relay.published();
		// Counted as sent: a machine that cannot keep up drops sends (OpenLoopGenerator).
		AtomicLong warmUpSent = new AtomicLong();
		// The one-key case runs the claim of keyed runs, which direct dispatch skips: warmed up too.
		for (String key : keys(warmUpRate)) {
			LongFunction<UUID> warmUpSend = sender.apply(key);
			new OpenLoopGenerator(SENDERS).run(warmUpRate, warmUpSends, (index) -> {
				warmUpSend.apply(index);
				warmUpSent.incrementAndGet();
			});
		}
		relay.awaitPublished(publishedBefore + warmUpSent.get(), Duration.ofMinutes(2));
		BareLatency.measure(broker, queue.exchange(), warmUpRate, sizes.jitWarmUpSeconds(), 1,
				(index) -> transactions.executeWithoutResult((status) -> business.insertOrder(index)));
		// As autovacuum would (it is off on the benchmark machine): statistics for the tables the load
		// filled, and plans PostgreSQL made while they were empty replaced by plans for their size.
		new Rows(wiring.schema()).vacuumAnalyze();
		progress.report("warm-up (untimed): " + sizes.jitWarmUpSeconds() + " s of Waybill, then of the floor, at "
				+ warmUpRate + " msg/s" + (keys(warmUpRate).size() > 1 ? " (Waybill unordered, then of one key)" : "") + "; "
				+ cpu.report(warmUpSent.get() + warmUpSends));
		forget.run();
		for (int rate : rates(sizes)) {
			Map<String, List<Double>> figures = new LinkedHashMap<>();
			for (int run = 1; run <= context.runs(); run++) {
				for (boolean commitFirst : ab ? List.of(true, false) : List.of(false)) {
					for (String key : keys(rate)) {
						store.commitFirst(commitFirst);
						String mode = (!ab ? "" : commitFirst ? "A claim commits first, " : "B claim commit overlapped, ")
								+ (key != null ? ONE_KEY : "");
						LongFunction<UUID> sendOfCase = sender.apply(key);
						long published = relay.published();
						store.takeClaimCounts();
						long notificationsBefore = notifier.received();
						cpu.start();
						ConfirmCanary canary = (canaryRate > 0) ? new ConfirmCanary(canaryConnection, queue.exchange(), canaryRate) : null;
						MeasuredLoad load = MeasuredLoad.run(SENDERS, rate, sizes.warmUpSeconds(), sizes.latencySeconds(), sendOfCase);
						Map<UUID, Instant> committed = load.committed();
						long[] canaryMicros = (canary != null) ? canary.stop() : null;
						relay.awaitPublished(published + load.sent(), Duration.ofMinutes(2));
						// What the relay did per message: claims (and empty ones), commit notifications sent.
						String cpuUsed = cpu.report(load.sent());
						long[] claimCounts = store.takeClaimCounts();
						long notifications = notifier.received() - notificationsBefore;
						long[] micros = Intervals.micros(committed, confirmed);
						add(figures, figure(mode + "p50", rate), Stats.percentile(micros, 50) / 1000.0);
						add(figures, figure(mode + "p95", rate), Stats.percentile(micros, 95) / 1000.0);
						add(figures, figure(mode + "p99", rate), Stats.percentile(micros, 99) / 1000.0);
						add(figures, figure(mode + "max", rate), micros[micros.length - 1] / 1000.0);
						long[] toClaim = Intervals.micros(committed, claimed);
						long[] claimToConfirm = Intervals.micros(claimed, confirmed, committed.keySet());
						long[] claiming = Intervals.micros(claimed, claimReturned, committed.keySet());
						long[] returnedToConfirm = Intervals.micros(claimReturned, confirmed, committed.keySet());
						addMedianAndTail(figures, mode, "commit to claim", rate, toClaim);
						addMedianAndTail(figures, mode, "claim to confirm", rate, claimToConfirm);
						addMedianAndTail(figures, mode, "claim start to return", rate, claiming);
						addMedianAndTail(figures, mode, "claim return to confirm", rate, returnedToConfirm);
						// Claim return to confirm, split where the relay calls the channel and where that call returns.
						long[] toPublish = Intervals.micros(claimReturned, publishCalled, committed.keySet());
						long[] publishing = Intervals.micros(publishCalled, publishReturned, committed.keySet());
						long[] brokerConfirm = Intervals.micros(publishReturned, confirmed, committed.keySet());
						addMedianAndTail(figures, mode, "claim return to publish call", rate, toPublish);
						addMedianAndTail(figures, mode, "publish call to return", rate, publishing);
						addMedianAndTail(figures, mode, "publish return to confirm", rate, brokerConfirm);
						addMedianAndTail(figures, mode, "confirm to marked published", rate,
								Intervals.micros(confirmed, marked, committed.keySet()));
						if (canaryMicros != null && canaryMicros.length > 0) {
							addMedianAndTail(figures, mode, "canary publish return to confirm", rate, canaryMicros);
						}
						add(figures, figure(mode + "achieved", rate), load.achieved());
						if (key != null) {
							// The bound of the case: the same writers, one after the other under the key's
							// lock, without the outbox and so without the relay's work on the database.
							MeasuredLoad alone = MeasuredLoad.run(SENDERS, rate, sizes.warmUpSeconds(), sizes.latencySeconds(),
									(index) -> business.insertOrderUnderLock(index, key));
							add(figures, figure(mode + WRITERS_ALONE, rate), alone.achieved());
							progress.report(mode + rate + " msg/s, run " + run + ": the writers of one key alone (one business row"
									+ " under the key's lock, no outbox) achieved " + ResultTable.number(alone.achieved()) + " msg/s");
						}
						long claimedMessages = committed.keySet().stream().filter(claimReturned::containsKey).count();
						progress.report(mode + rate + " msg/s, run " + run + ": p50 " + ResultTable.number(Stats.percentile(micros, 50) / 1000.0)
								+ " ms, p99 " + ResultTable.number(Stats.percentile(micros, 99) / 1000.0) + " ms, achieved "
								+ ResultTable.number(load.achieved()) + " msg/s" + (load.dropped() > 0 ? ", " + load.dropped()
										+ " sends dropped (could not start in time)" : "") + (duplicates.get() > 0 ? ", "
										+ duplicates.get() + " reported published twice so far" : "") + "; " + claimedMessages + " of "
								+ committed.size() + " measured messages claimed (the rest by direct dispatch); p50 publish call "
								+ ResultTable.number(Stats.percentile(publishing, 50) / 1000.0) + " ms, publish return to confirm "
								+ ResultTable.number(Stats.percentile(brokerConfirm, 50) / 1000.0) + " ms (p99 "
								+ ResultTable.number(Stats.percentile(brokerConfirm, 99) / 1000.0) + ")"
								+ ((canaryMicros != null && canaryMicros.length > 0) ? ", canary's " + ResultTable.number(
										Stats.percentile(canaryMicros, 50) / 1000.0) + " ms (p99 " + ResultTable.number(
												Stats.percentile(canaryMicros, 99) / 1000.0) + ")" : "")
								+ "; per 100 messages: " + ResultTable.number(100.0 * claimCounts[0] / load.sent()) + " claims ("
								+ ResultTable.number(100.0 * claimCounts[1] / load.sent()) + " empty), "
								+ ResultTable.number(100.0 * notifications / load.sent()) + " commit notifications; " + cpuUsed);
						forget.run();
					}
				}
			}
			perRate.put(rate, figures);
		}
		// The bare publisher runs after every Waybill run: RabbitMQ's clean-up of its queue would
		// otherwise spill into the next Waybill run's tail.
		for (int rate : rates(sizes)) {
			Map<String, List<Double>> figures = perRate.get(rate);
			for (int run = 1; run <= context.runs(); run++) {
				ConfirmCanary canary = (canaryRate > 0) ? new ConfirmCanary(canaryConnection, queue.exchange(), canaryRate) : null;
				cpu.start();
				long[] bare = BareLatency.measure(broker, queue.exchange(), rate, sizes.warmUpSeconds(), sizes.latencySeconds(),
						(index) -> transactions.executeWithoutResult((status) -> business.insertOrder(index)));
				String cpuUsed = cpu.report((long) rate * (sizes.warmUpSeconds() + sizes.latencySeconds()));
				long[] canaryMicros = (canary != null) ? canary.stop() : null;
				add(figures, figure(FLOOR + "p50", rate), Stats.percentile(bare, 50) / 1000.0);
				add(figures, figure(FLOOR + "p99", rate), Stats.percentile(bare, 99) / 1000.0);
				if (canaryMicros != null && canaryMicros.length > 0) {
					add(figures, figure(FLOOR + "p50 canary publish return to confirm", rate), Stats.percentile(canaryMicros, 50) / 1000.0);
					add(figures, figure(FLOOR + "p99 canary publish return to confirm", rate), Stats.percentile(canaryMicros, 99) / 1000.0);
				}
				progress.report(rate + " msg/s, run " + run + ", floor (bare publisher under write load): p50 "
						+ ResultTable.number(Stats.percentile(bare, 50) / 1000.0) + " ms, p99 "
						+ ResultTable.number(Stats.percentile(bare, 99) / 1000.0) + " ms"
						+ ((canaryMicros != null && canaryMicros.length > 0) ? "; canary's publish return to confirm "
								+ ResultTable.number(Stats.percentile(canaryMicros, 50) / 1000.0) + " ms (p99 "
								+ ResultTable.number(Stats.percentile(canaryMicros, 99) / 1000.0) + ")" : "") + "; " + cpuUsed);
				queue.purge();
			}
			figures.forEach((figure, values) -> results.add(new Measurement(NAME, figure,
					figure.contains("achieved") ? "msg/s" : "ms", values,
					figure.contains("achieved") ? "commits/s; sends that could not start within 2 s of the end are dropped" : sizes.latencySeconds()
							+ " s measured after " + sizes.warmUpSeconds() + " s warm-up (and " + sizes.jitWarmUpSeconds()
							+ " s of untimed load of each side before the first run), " + (figure.startsWith(FLOOR)
									? "1-row business tx without outbox, then a bare publish, same rate and threads: commit to confirm"
									: figure.contains(ONE_KEY) ? "1-row business tx + 1 outbox message, every one of the same ordering key: commit to confirm"
											: "1-row business tx + 1 outbox message: commit to confirm"))));
		}
		return results;
	}

	/** Keeps the view the application made, for the benchmark to read. */
	private static <T> T timed(AtomicReference<T> holder, T view) {
		holder.set(view);
		return view;
	}

	// -Dwaybill.bench.latency.rates=1000 runs only the named rates: for quick A/B comparisons.
	private static List<Integer> rates(Sizes sizes) {
		String only = System.getProperty("waybill.bench.latency.rates");
		return (only == null || only.isBlank()) ? sizes.latencyRates()
				: java.util.Arrays.stream(only.split(",")).map(String::trim).map(Integer::valueOf).toList();
	}

	/** The ordering keys a run at {@code rate} offers its load with: none (null), and one key at {@link #ONE_KEY_RATE}. */
	private static List<String> keys(int rate) {
		return (rate == ONE_KEY_RATE) ? java.util.Arrays.asList(null, HOT_KEY) : java.util.Collections.singletonList(null);
	}

	/**
	 * Adds a stage's p50 and p99, in ms, from its sorted microseconds; nothing when no message
	 * passed through it (the claim stages, when every message went out by direct dispatch).
	 */
	private static void addMedianAndTail(Map<String, List<Double>> figures, String mode, String stage, int rate,
			long[] sortedMicros) {
		if (sortedMicros.length == 0) {
			return;
		}
		add(figures, figure(mode + "p50 " + stage, rate), Stats.percentile(sortedMicros, 50) / 1000.0);
		add(figures, figure(mode + "p99 " + stage, rate), Stats.percentile(sortedMicros, 99) / 1000.0);
	}

	/** Adds one run's value of a figure. */
	static void add(Map<String, List<Double>> figures, String figure, double value) {
		figures.computeIfAbsent(figure, (key) -> new ArrayList<>()).add(value);
	}

}
