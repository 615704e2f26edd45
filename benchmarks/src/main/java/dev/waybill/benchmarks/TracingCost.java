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
import io.micrometer.observation.ObservationRegistry;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.test.TestSchema;

/**
 * (8) What tracing costs: the relay draining a backlog (scopes of 1, as benchmark 2) and the inbox
 * consuming a filled queue (as benchmark 5), each with tracing off (no observation registry: the
 * default of an application without Micrometer Tracing) and on (a real tracer, OpenTelemetry SDK
 * sampling 100%, a no-op exporter; see {@link BenchTracing}), interleaved off, on, off, on... so
 * the machine's drift hits both alike. Off and on are two applications on the same schema, the
 * second with the tracer's {@code ObservationRegistry} bean, which the auto-configuration observes
 * the relay and the inbox with. Every message carries a W3C {@code traceparent}, as one
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
		TestSchema schema = context.schema(NAME);
		Rows rows = new Rows(schema);
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		String handled = schema.name() + ".handled";
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
		// Closed after the traced application, which ends its last spans.
		BenchTracing tracing = context.register(new BenchTracing());
		// The same application without and with an ObservationRegistry bean, which Waybill observes.
		OutboxWiring untraced = context.wiring(schema, (app) -> consuming(app, context, consumer));
		OutboxWiring traced = context.wiring(schema,
				(app) -> consuming(app, context, consumer).bean(ObservationRegistry.class, tracing::registry));
		List<Double> relayOff = new ArrayList<>();
		List<Double> relayOn = new ArrayList<>();
		List<Double> inboxOff = new ArrayList<>();
		List<Double> inboxOn = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			for (boolean on : new boolean[] { false, true }) {
				OutboxWiring wiring = on ? traced : untraced;
				long spansBefore = tracing.spansEnded();
				rows.truncate();
				rows.pending(relayMessages, 1, relayQueue.exchange());
				rows.traceparents();
				rows.vacuumAnalyze();
				relayQueue.purge();
				double relayRate = RelayThroughput.drain(wiring, relayMessages);
				(on ? relayOn : relayOff).add(relayRate);
				relayQueue.purge();

				rows.truncate();
				jdbc.execute("TRUNCATE " + handled);
				fill(connection, inboxQueue, inboxMessages);
				double inboxRate = InboxThroughput.consume(wiring, handledCount, inboxMessages);
				(on ? inboxOn : inboxOff).add(inboxRate);
				inboxQueue.purge();

				long spans = awaitSpans(tracing, spansBefore, on ? relayMessages + inboxMessages : 0);
				progress.report("run " + run + ", tracing " + (on ? "on" : "off") + ": relay "
						+ ResultTable.number(relayRate) + " msg/s, inbox " + ResultTable.number(inboxRate) + " msg/s, "
						+ spans + " spans");
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

	/** The relay (paused until a run drains) and the benchmark's consumer with the defaults. */
	private static WaybillApp.Builder consuming(WaybillApp.Builder app, BenchContext context, ReceiveEndpoint consumer) {
		return app.rabbit(context.rabbit())
			.bean(ConsumerRegistry.class, () -> ConsumerRegistry.ofEndpoints(List.of(consumer)));
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
