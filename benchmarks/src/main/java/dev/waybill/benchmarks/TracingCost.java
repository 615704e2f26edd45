package dev.waybill.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.InboxResources;
import dev.waybill.inbox.internal.InboxSettings;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.internal.observation.InboxObservation;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.internal.JacksonMessageSerializer;

/**
 * (8) What tracing costs: the relay draining a backlog (scopes of 1, as benchmark 2) and the inbox
 * consuming a filled queue (as benchmark 5), each with tracing off (no observation registry: the
 * default of an application without Micrometer Tracing) and on (a real tracer, OpenTelemetry SDK
 * sampling 100%, a no-op exporter; see {@link BenchTracing}), interleaved off, on, off, on... so
 * the machine's drift hits both alike. Every message carries a W3C {@code traceparent}, as one
 * published inside a traced request does, so the traced relay and inbox continue its trace.
 */
final class TracingCost implements Benchmark {

	static final String NAME = "tracing";

	private static final WaybillInboxProperties DEFAULTS = new WaybillInboxProperties();

	static String figure(String part, boolean traced) {
		return part + ", tracing " + (traced ? "on" : "off");
	}

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int relayMessages = context.sizes().relayMessages() / 2;
		int inboxMessages = context.sizes().inboxMessages();
		OutboxWiring wiring = context.wiring(NAME);
		Rows rows = new Rows(wiring.schema());
		JdbcTemplate jdbc = wiring.jdbc();
		String handled = wiring.schema().name() + ".handled";
		jdbc.execute("CREATE TABLE " + handled + " (seq bigint NOT NULL, handled_at timestamptz NOT NULL DEFAULT now())");
		BrokerQueue relayQueue = context.queue(context.uniqueName(NAME));
		BrokerQueue inboxQueue = context.queue(BenchOrder.TYPE);
		Connection connection = context.register(context.rabbit().connect());
		AtomicLong handledCount = new AtomicLong();
		ReceiveEndpoint consumer = ReceiveEndpoint.on(inboxQueue.name())
			.withConcurrency(DEFAULTS.getConcurrency())
			.withPrefetch(DEFAULTS.getPrefetch())
			.handle(BenchOrder.class, (order, messageContext) -> {
				jdbc.update("INSERT INTO " + handled + " (seq) VALUES (?)", order.seq());
				handledCount.incrementAndGet();
			});
		inboxQueue.alsoDelete(consumer.errorQueue());
		InboxResources resources = new InboxResources(wiring.transactionManager(),
				new InboxStore(wiring.schema().dataSource(), wiring.schema().tables()), wiring.store(),
				wiring.publisher(), wiring.publisher().consumerOutbox(), new JacksonMessageSerializer(), wiring.wakeUp());
		InboxSettings settings = InboxSettings.of(DEFAULTS.toRetryPolicy(), DEFAULTS.getRetry().getImmediate());
		InboxProcessor untracedProcessor = new InboxProcessor(resources, settings);
		List<Double> relayOff = new ArrayList<>();
		List<Double> relayOn = new ArrayList<>();
		List<Double> inboxOff = new ArrayList<>();
		List<Double> inboxOn = new ArrayList<>();
		try (BenchTracing tracing = new BenchTracing()) {
			RelayObservation relayObservation = new RelayObservation(tracing.registry(), null);
			InboxProcessor tracedProcessor = new InboxProcessor(resources,
					settings.withObservation(new InboxObservation(tracing.registry(), null)));
			for (int run = 1; run <= context.runs(); run++) {
				for (boolean traced : new boolean[] { false, true }) {
					long spansBefore = tracing.spansEnded();
					rows.truncate();
					rows.pending(relayMessages, 1, relayQueue.exchange());
					rows.traceparents();
					rows.vacuumAnalyze();
					relayQueue.purge();
					double relayRate = drain(wiring, context, relayMessages,
							traced ? relayObservation : RelayObservation.NONE);
					(traced ? relayOn : relayOff).add(relayRate);
					relayQueue.purge();

					rows.truncate();
					jdbc.execute("TRUNCATE " + handled);
					fill(connection, inboxQueue, inboxMessages);
					handledCount.set(0);
					InboxProcessor processor = traced ? tracedProcessor : untracedProcessor;
					double inboxRate = consume(context, processor, consumer, handledCount, inboxMessages);
					(traced ? inboxOn : inboxOff).add(inboxRate);
					inboxQueue.purge();

					long spans = awaitSpans(tracing, spansBefore, traced ? relayMessages + inboxMessages : 0);
					progress.report("run " + run + ", tracing " + (traced ? "on" : "off") + ": relay "
							+ ResultTable.number(relayRate) + " msg/s, inbox " + ResultTable.number(inboxRate) + " msg/s, "
							+ spans + " spans");
				}
			}
		}
		String relayNote = relayMessages + " msgs backlog in scopes of 1, default relay";
		String inboxNote = inboxMessages + " msgs, " + DEFAULTS.getConcurrency() + " channel(s), prefetch "
				+ DEFAULTS.getPrefetch();
		return List.of(new Measurement(NAME, figure("relay drain", false), "msg/s", relayOff, relayNote),
				new Measurement(NAME, figure("relay drain", true), "msg/s", relayOn, relayNote + ", 1 span per message"),
				new Measurement(NAME, figure("inbox", false), "msg/s", inboxOff, inboxNote),
				new Measurement(NAME, figure("inbox", true), "msg/s", inboxOn, inboxNote + ", 1 span per message"));
	}

	private static double drain(OutboxWiring wiring, BenchContext context, long messages, RelayObservation observation)
			throws InterruptedException {
		Timer timer = Timer.start();
		try (OutboxWiring.RunningRelay relay = wiring.startRelayOfScopes(context.rabbit(), (scope, at) -> {
		}, observation)) {
			relay.awaitPublished(messages, Duration.ofSeconds(120 + messages / 100));
			return timer.rate(messages);
		}
	}

	private static double consume(BenchContext context, InboxProcessor processor, ReceiveEndpoint consumer,
			AtomicLong handledCount, int messages) throws InterruptedException {
		try (RabbitTransport transport = OutboxWiring.transport(context.rabbit())) {
			RabbitReceiveEndpoint endpoint = new RabbitReceiveEndpoint(transport, processor, List.of(consumer));
			Timer timer = Timer.start();
			endpoint.start();
			try {
				long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
				while (handledCount.get() < messages) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException("The inbox handled " + handledCount.get() + " of " + messages
								+ " messages within 5 minutes");
					}
					Thread.sleep(2);
				}
				return timer.rate(messages);
			}
			finally {
				endpoint.stop();
			}
		}
	}

	/** Fills the queue with messages that each carry a trace context of their own. */
	private static void fill(Connection connection, BrokerQueue queue, int messages)
			throws IOException, InterruptedException {
		queue.purge();
		ConfirmedPublisher.publish(connection, "", queue.name(), 0, messages, OutboxWiring.confirmWindow(),
				(seq) -> ConfirmedPublisher.properties().builder().headers(Map.of("traceparent", traceparent())).build());
	}

	private static String traceparent() {
		String trace = UUID.randomUUID().toString().replace("-", "");
		return "00-" + trace + "-" + trace.substring(0, 16) + "-01";
	}

	/**
	 * Waits until the spans of a traced run ended (the relay's end at each confirm) and checks that
	 * tracing really ran, or did not.
	 * @return the spans that ended in the run
	 */
	private static long awaitSpans(BenchTracing tracing, long before, long expected) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (tracing.spansEnded() - before < expected && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		long spans = tracing.spansEnded() - before;
		if ((expected == 0) != (spans == 0) || spans < expected) {
			throw new IllegalStateException("Expected " + expected + " spans, " + spans + " ended");
		}
		return spans;
	}

}
