package dev.waybill.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.test.TestSchema;

/**
 * (5) Inbox throughput: a queue filled with N messages (outside the timed window) is consumed
 * through the inbox (dedupe row, a handler that inserts one row, processed mark, commit, ack), and
 * the same N messages by a bare consumer that only acknowledges, with the same channels and
 * prefetch (the {@code waybill.inbox.*} defaults, so batched: up to {@code batch.max-size}
 * deliveries per transaction). Messages/s from start to the last handled. The same with
 * {@code batch.max-size 1} (a transaction per delivery), interleaved run by run.
 * <p>
 * Then the latency the batching adds: an open-loop publisher offers messages at a low and a
 * moderate rate to the running inbox, and each message's time from its publish to the commit of
 * its handler's transaction (the listener hears it right after) is recorded; p50 and p99, batched
 * (the defaults) and with {@code batch.max-size 1}.
 */
final class InboxThroughput implements Benchmark {

	static final String NAME = "inbox";

	static final String BARE = "bare consume + ack";

	static final String INBOX = "inbox: dedupe + handler insert + ack";

	static final String UNBATCHED = "inbox, batch.max-size 1 (a transaction per delivery)";

	static final String PARTITIONED = "inbox partitioned by ordering key (1,000 keys)";

	static final String HOT_KEY = "inbox partitioned by ordering key, 1 key";

	/** Open-loop rates of the latency runs, messages per second. */
	static final List<Integer> LATENCY_RATES = List.of(100, 1_000);

	/** Keys of the partitioned run's messages. */
	private static final int KEYS = 1_000;

	private static final WaybillInboxProperties DEFAULTS = new WaybillInboxProperties();

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().inboxMessages();
		TestSchema schema = context.schema(NAME);
		Rows rows = new Rows(schema);
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		String handled = schema.name() + ".handled";
		jdbc.execute("CREATE TABLE " + handled + " (seq bigint NOT NULL, handled_at timestamptz NOT NULL DEFAULT now())");
		BrokerQueue queue = context.queue(BenchOrder.TYPE);
		Connection connection = context.register(context.rabbit().connect());
		AtomicLong handledCount = new AtomicLong();
		ReceiveEndpoint consumer = ReceiveEndpoint.on(queue.name())
			.withConcurrency(DEFAULTS.getConcurrency())
			.withPrefetch(DEFAULTS.getPrefetch())
			// A channel per thread, to compare with the partitioned endpoint below.
			.withPartitionByOrderingKey(false)
			.handle(BenchOrder.class, (order, messageContext) -> {
				jdbc.update("INSERT INTO " + handled + " (seq) VALUES (?)", order.seq());
				handledCount.incrementAndGet();
			});
		ReceiveEndpoint partitioned = consumer.withPartitionByOrderingKey(true);
		queue.alsoDelete(consumer.errorQueue());
		CommitLatencies latencies = new CommitLatencies();
		int maxSize = DEFAULTS.getBatch().getMaxSize();
		// One application per way of consuming, each with its receive endpoint paused until a run.
		Map<Integer, OutboxWiring> byBatch = Map.of(maxSize, inbox(context, schema, consumer, latencies, maxSize), 1,
				inbox(context, schema, consumer, latencies, 1));
		OutboxWiring keyedInbox = inbox(context, schema, partitioned, latencies, maxSize);
		List<Double> bare = new ArrayList<>();
		List<Double> inbox = new ArrayList<>();
		List<Double> unbatched = new ArrayList<>();
		List<Double> keyed = new ArrayList<>();
		List<Double> hotKey = new ArrayList<>();
		Map<String, List<Double>> latency = new LinkedHashMap<>();
		for (int run = 1; run <= context.runs(); run++) {
			fill(connection, queue, messages, 0);
			bare.add(bareConsume(connection, queue.name(), messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, 0);
			inbox.add(consume(byBatch.get(maxSize), handledCount, messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, 0);
			unbatched.add(consume(byBatch.get(1), handledCount, messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, KEYS);
			keyed.add(consume(keyedInbox, handledCount, messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, 1);
			hotKey.add(consume(keyedInbox, handledCount, messages));
			progress.report("run " + run + ": bare " + ResultTable.number(bare.get(run - 1)) + " msg/s, inbox "
					+ ResultTable.number(inbox.get(run - 1)) + " msg/s, max-size 1 "
					+ ResultTable.number(unbatched.get(run - 1)) + " msg/s, partitioned "
					+ ResultTable.number(keyed.get(run - 1)) + " msg/s, one key "
					+ ResultTable.number(hotKey.get(run - 1)) + " msg/s");
			queue.purge();
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			for (int rate : LATENCY_RATES) {
				for (int batch : List.of(maxSize, 1)) {
					long[] sorted = latency(context, byBatch.get(batch), connection, queue, latencies, handledCount, rate);
					latency.computeIfAbsent(latencyFigure("p50", rate, batch), (k) -> new ArrayList<>())
						.add(Stats.percentile(sorted, 50) / 1e6);
					latency.computeIfAbsent(latencyFigure("p99", rate, batch), (k) -> new ArrayList<>())
						.add(Stats.percentile(sorted, 99) / 1e6);
					progress.report("run " + run + ": publish-to-commit @ " + rate + " msg/s, max-size " + batch
							+ ": p50 " + String.format("%.2f", Stats.percentile(sorted, 50) / 1e6) + " ms, p99 "
							+ String.format("%.2f", Stats.percentile(sorted, 99) / 1e6) + " ms");
					rows.truncate();
					jdbc.execute("TRUNCATE " + handled);
				}
			}
		}
		String note = messages + " msgs, " + DEFAULTS.getConcurrency() + " channel(s), prefetch " + DEFAULTS.getPrefetch();
		List<Measurement> measurements = new ArrayList<>();
		measurements.add(new Measurement(NAME, BARE, "msg/s", bare, note));
		measurements.add(new Measurement(NAME, INBOX, "msg/s", inbox, note + ", batch.max-size "
				+ DEFAULTS.getBatch().getMaxSize() + ", linger " + DEFAULTS.getBatch().getLinger().toMillis() + " ms"));
		measurements.add(new Measurement(NAME, UNBATCHED, "msg/s", unbatched, note));
		latency.forEach((figure, values) -> measurements.add(new Measurement(NAME, figure, "ms", values,
				"open loop, " + context.sizes().latencySeconds() + " s after " + context.sizes().warmUpSeconds()
						+ " s warm-up, publish to the handler's commit")));
		measurements.add(
				new Measurement(NAME, PARTITIONED, "msg/s", keyed, messages + " msgs with " + KEYS + " ordering keys, "
						+ "1 channel (prefetch " + DEFAULTS.getPrefetch() * DEFAULTS.getConcurrency() + "), "
						+ DEFAULTS.getConcurrency() + " key lanes, batched"));
		measurements.add(new Measurement(NAME, HOT_KEY, "msg/s", hotKey, messages + " msgs of one ordering key, "
				+ "1 channel, its key's one lane, batched"));
		return measurements;
	}

	static String latencyFigure(String percentile, int rate, int batch) {
		return "inbox publish-to-commit " + percentile + " @ " + String.format("%,d", rate) + " msg/s, batch.max-size "
				+ batch;
	}

	/**
	 * Waybill consuming the benchmark's queue as an application with the given consumer and
	 * {@code waybill.inbox.batch.max-size}; no relay, since the handler publishes nothing.
	 */
	private static OutboxWiring inbox(BenchContext context, TestSchema schema, ReceiveEndpoint consumer,
			InboxListener listener, int batch) {
		return context.wiring(schema, (app) -> app.rabbit(context.rabbit())
			.property(WaybillRelayAutoConfiguration.ENABLED_PROPERTY, false)
			.property("waybill.inbox.batch.max-size", batch)
			.bean(ConsumerRegistry.class, () -> ConsumerRegistry.ofEndpoints(List.of(consumer)))
			.bean(InboxListener.class, () -> listener));
	}

	/**
	 * Offers messages at {@code rate} to a running inbox and returns each one's time from publish to
	 * its handler's commit, sorted, in nanoseconds (the warm-up's left out).
	 */
	private static long[] latency(BenchContext context, OutboxWiring inbox, Connection connection, BrokerQueue queue,
			CommitLatencies latencies, AtomicLong handledCount, int rate) throws Exception {
		queue.purge();
		int warmUp = rate * context.sizes().warmUpSeconds();
		int count = warmUp + rate * context.sizes().latencySeconds();
		latencies.start(count);
		handledCount.set(0);
		try (OutboxWiring.Consuming consuming = inbox.startConsuming()) {
			Channel channel = connection.createChannel();
			try {
				new OpenLoopGenerator(1).run(rate, count, (seq) -> {
					latencies.sent(seq);
					try {
						channel.basicPublish("", queue.name(), ConfirmedPublisher.properties(), BenchOrder.json(seq));
					}
					catch (IOException ex) {
						throw new IllegalStateException(ex);
					}
				});
				await(handledCount, count);
			}
			finally {
				channel.abort();
			}
		}
		return latencies.sorted(warmUp);
	}

	/** Hears each commit and keeps the time from the message's publish to it. */
	private static final class CommitLatencies implements InboxListener {

		private volatile long[] sentAt = new long[0];

		private volatile long[] latency = new long[0];

		void start(int count) {
			this.sentAt = new long[count];
			this.latency = new long[count];
		}

		void sent(long seq) {
			this.sentAt[(int) seq] = System.nanoTime();
		}

		@Override
		public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
			long now = System.nanoTime();
			int seq = seq(message.body());
			if (seq >= 0 && seq < this.latency.length) {
				this.latency[seq] = now - this.sentAt[seq];
			}
		}

		long[] sorted(int from) {
			long[] values = Arrays.copyOfRange(this.latency, from, this.latency.length);
			Arrays.sort(values);
			return values;
		}

		/** The seq of a {@link BenchOrder} body, {"seq":<n>,...}. */
		private static int seq(byte[] body) {
			int value = 0;
			int i = 7;
			if (body.length < 8 || body[0] != '{') {
				return -1;
			}
			for (; i < body.length && body[i] >= '0' && body[i] <= '9'; i++) {
				value = value * 10 + (body[i] - '0');
			}
			return value;
		}

	}

	/**
	 * Resumes an application's receive endpoint on a filled queue and returns messages/s until
	 * the handler counted {@code messages}; pauses the endpoint again.
	 */
	static double consume(OutboxWiring inbox, AtomicLong handledCount, int messages)
			throws InterruptedException {
		handledCount.set(0);
		Timer timer = Timer.start();
		try (OutboxWiring.Consuming consuming = inbox.startConsuming()) {
			await(handledCount, messages);
			return timer.rate(messages);
		}
	}

	private static void fill(Connection connection, BrokerQueue queue, int messages, int keys)
			throws IOException, InterruptedException {
		queue.purge();
		ConfirmedPublisher.publish(connection, "", queue.name(), 0, messages, OutboxWiring.confirmWindow(), keys);
	}

	private static double bareConsume(Connection connection, String queue, int messages)
			throws IOException, InterruptedException {
		CountDownLatch done = new CountDownLatch(messages);
		List<Channel> channels = new ArrayList<>();
		Timer timer = Timer.start();
		try {
			for (int i = 0; i < DEFAULTS.getConcurrency(); i++) {
				Channel channel = connection.createChannel();
				channels.add(channel);
				channel.basicQos(DEFAULTS.getPrefetch());
				channel.basicConsume(queue, false, new DefaultConsumer(channel) {
					@Override
					public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
							throws IOException {
						getChannel().basicAck(envelope.getDeliveryTag(), false);
						done.countDown();
					}
				});
			}
			if (!done.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The bare consumer received " + (messages - done.getCount()) + " of "
						+ messages + " messages within 5 minutes");
			}
			return timer.rate(messages);
		}
		finally {
			for (Channel channel : channels) {
				channel.abort();
			}
		}
	}

	static void await(AtomicLong count, long messages) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
		while (count.get() < messages) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The inbox handled " + count.get() + " of " + messages
						+ " messages within 5 minutes");
			}
			Thread.sleep(2);
		}
	}

}
