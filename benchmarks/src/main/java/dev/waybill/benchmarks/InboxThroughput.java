package dev.waybill.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.internal.JacksonMessageSerializer;

/**
 * (5) Inbox throughput: a queue filled with N messages (outside the timed window) is consumed
 * through the inbox (dedupe row, a handler that inserts one row, processed mark, commit, ack), and
 * the same N messages by a bare consumer that only acknowledges, with the same channels and
 * prefetch (the {@code waybill.inbox.*} defaults). Messages/s from start to the last handled.
 */
final class InboxThroughput implements Benchmark {

	static final String NAME = "inbox";

	static final String BARE = "bare consume + ack";

	static final String INBOX = "inbox: dedupe + handler insert + ack";

	static final String PARTITIONED = "inbox partitioned by ordering key (1,000 keys)";

	/** Keys of the partitioned run's messages. */
	private static final int KEYS = 1_000;

	private static final WaybillInboxProperties DEFAULTS = new WaybillInboxProperties();

	@Override
	public List<Measurement> run(BenchContext context, Progress progress) throws Exception {
		int messages = context.sizes().inboxMessages();
		OutboxWiring wiring = context.wiring(NAME);
		Rows rows = new Rows(wiring.schema());
		JdbcTemplate jdbc = wiring.jdbc();
		String handled = wiring.schema().name() + ".handled";
		jdbc.execute("CREATE TABLE " + handled + " (seq bigint NOT NULL, handled_at timestamptz NOT NULL DEFAULT now())");
		BrokerQueue queue = context.queue(BenchOrder.TYPE);
		Connection connection = context.register(context.rabbit().connect());
		AtomicLong handledCount = new AtomicLong();
		ConsumerRegistration<BenchOrder> consumer = ConsumerRegistration
			.of(queue.name(), BenchOrder.class, (order, messageContext) -> {
				jdbc.update("INSERT INTO " + handled + " (seq) VALUES (?)", order.seq());
				handledCount.incrementAndGet();
			})
			.withConcurrency(DEFAULTS.getConcurrency())
			.withPrefetch(DEFAULTS.getPrefetch())
			// The figure as before ordering keys: a channel per thread (issue 17 measures it against
			// the partitioned one below).
			.withPartitionByOrderingKey(false);
		ConsumerRegistration<BenchOrder> partitioned = consumer.withPartitionByOrderingKey(true);
		queue.alsoDelete(consumer.errorQueue());
		InboxProcessor processor = new InboxProcessor(wiring.transactionManager(),
				new InboxStore(wiring.schema().dataSource(), wiring.schema().tables()), wiring.store(),
				wiring.publisher(), wiring.publisher().consumerOutbox(), new JacksonMessageSerializer(), wiring.wakeUp(),
				DEFAULTS.toRetryPolicy(), DEFAULTS.getRetry().getImmediate());
		List<Double> bare = new ArrayList<>();
		List<Double> inbox = new ArrayList<>();
		List<Double> keyed = new ArrayList<>();
		for (int run = 1; run <= context.runs(); run++) {
			fill(connection, queue, messages, 0);
			bare.add(bareConsume(connection, queue.name(), messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, 0);
			inbox.add(consume(context, processor, consumer, handledCount, messages));
			rows.truncate();
			jdbc.execute("TRUNCATE " + handled);
			fill(connection, queue, messages, KEYS);
			keyed.add(consume(context, processor, partitioned, handledCount, messages));
			progress.report("run " + run + ": bare " + ResultTable.number(bare.get(run - 1)) + " msg/s, inbox "
					+ ResultTable.number(inbox.get(run - 1)) + " msg/s, partitioned "
					+ ResultTable.number(keyed.get(run - 1)) + " msg/s");
			queue.purge();
		}
		String note = messages + " msgs, " + DEFAULTS.getConcurrency() + " channel(s), prefetch " + DEFAULTS.getPrefetch();
		return List.of(new Measurement(NAME, BARE, "msg/s", bare, note),
				new Measurement(NAME, INBOX, "msg/s", inbox, note),
				new Measurement(NAME, PARTITIONED, "msg/s", keyed, messages + " msgs with " + KEYS + " ordering keys, "
						+ "1 channel (prefetch " + DEFAULTS.getPrefetch() * DEFAULTS.getConcurrency() + "), "
						+ DEFAULTS.getConcurrency() + " key lanes"));
	}

	private static double consume(BenchContext context, InboxProcessor processor, ConsumerRegistration<BenchOrder> consumer,
			AtomicLong handledCount, int messages) throws InterruptedException {
		handledCount.set(0);
		try (RabbitTransport transport = OutboxWiring.transport(context.rabbit())) {
			RabbitReceiveEndpoint endpoint = new RabbitReceiveEndpoint(transport, processor, List.of(consumer));
			Timer timer = Timer.start();
			endpoint.start();
			try {
				await(handledCount, messages);
				return timer.rate(messages);
			}
			finally {
				endpoint.stop();
			}
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

	private static void await(AtomicLong count, long messages) throws InterruptedException {
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
