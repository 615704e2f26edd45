package dev.waybill.integration.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * The single-active-consumer hand-over of a partitioned (ordered) consumer, on a quorum queue and,
 * for comparison, on a classic one: a backlog of keyed messages sits in the queue, instance A
 * consumes it with 4 lanes holding deliveries (a full prefetch), B stands by; mid-way A is stopped
 * gracefully, or its connection is cut (the broker sees the socket close, as when the process
 * dies), and B takes over. Every key's messages must be in effect (committed by the inbox) once
 * each, in order, and no key handled by two workers at once. Both concurrencies partition by key,
 * so a stop closes the channel without a cancel and the broker returns what A held, in order,
 * before it serves B. (Concurrency 1 did not partition before: its stop cancelled, and a quorum
 * queue served what A had held after the key's later messages, in every run.) Rounds per case:
 * system property {@code waybill.handOver.rounds} (default 1).
 */
class QuorumQueueHandOverIntegrationTests {

	private static final int KEYS = 24;

	private static final int EVENTS_PER_KEY = 25;

	private static final int TOTAL = KEYS * EVENTS_PER_KEY;

	@ParameterizedTest(name = "{0} queue, {1}, concurrency {2}")
	@CsvSource({ "quorum, graceful, 4", "quorum, crash, 4", "classic, graceful, 4", "classic, crash, 4",
			"quorum, graceful, 1", "quorum, crash, 1", "classic, graceful, 1", "classic, crash, 1" })
	void everyKeysMessagesAreInEffectOnceInOrderAcrossTheHandOver(String queueType, String stop, int concurrency)
			throws Exception {
		// e.g. -Dwaybill.handOver.only='quorum/.*/c1' runs the matching cases only
		Assumptions.assumeTrue((queueType + "/" + stop + "/c" + concurrency)
			.matches(System.getProperty("waybill.handOver.only", ".*")));
		int rounds = Integer.getInteger("waybill.handOver.rounds", 1);
		List<String> failures = new ArrayList<>();
		for (int round = 1; round <= rounds; round++) {
			Round result = round(queueType, "crash".equals(stop), concurrency);
			System.out.println("HANDOVER " + queueType + "/" + stop + "/c" + concurrency + " round " + round + ": " + result);
			if (!result.disordered.isEmpty() || result.overlaps > 0) {
				failures.add("round " + round + ": " + result.overlaps + " overlaps, " + result.disordered);
			}
		}
		assertThat(failures).as("keys whose messages were not in effect once each, in order, one at a time").isEmpty();
	}

	private Round round(String queueType, boolean crash, int concurrency) throws Exception {
		List<AutoCloseable> resources = new ArrayList<>();
		TestSchema orders = TestSchema.withWaybillTables("handover_orders");
		TestSchema billing = TestSchema.withWaybillTables("handover_billing");
		String queue = "handover-" + queueType + "-" + UUID.randomUUID().toString().substring(0, 8);
		try {
			KeyedRecorder.createTable(billing);
			Map<String, Object> arguments = "quorum".equals(queueType)
					? Map.of("x-queue-type", "quorum", "x-single-active-consumer", true)
					: Map.of("x-single-active-consumer", true);
			KeyedRecorder.Shared recorded = new KeyedRecorder.Shared();

			// Declares the queue and its binding, then leaves: the backlog waits in the queue.
			TestReceiveEndpoint declarer = endpoint(resources, billing, null,
					receiveEndpoint(queue, arguments, concurrency, recorder(billing, "declarer", recorded)));
			declarer.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(declarer::isConsuming);
			declarer.stop();

			publishBacklog(resources, orders, queue);

			TcpProxy proxy = TcpProxy.start(TestRabbit.get().host(), TestRabbit.get().port());
			resources.add(proxy);
			// A handles nothing until B stands by: unheld, A could finish the backlog while B starts,
			// and nothing would be handed over
			CountDownLatch standingBy = new CountDownLatch(1);
			KeyedRecorder<Step> recorderOfA = recorder(billing, "A", recorded);
			MessageHandler<Step> handlerOfA = (step, context) -> {
				standingBy.await(30, TimeUnit.SECONDS);
				recorderOfA.handle(step, context);
			};
			TestReceiveEndpoint a = endpoint(resources, billing, proxy,
					receiveEndpoint(queue, arguments, concurrency, handlerOfA));
			TestReceiveEndpoint b = endpoint(resources, billing, null,
					receiveEndpoint(queue, arguments, concurrency, recorder(billing, "B", recorded)));
			a.start(); // the first to consume a single-active-consumer queue is its active consumer
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(a::isConsuming);
			b.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(b::isConsuming);
			standingBy.countDown();
			Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
				.until(() -> handled(billing) >= TOTAL / 3);
			int atHandOver = handled(billing);
			if (crash) {
				proxy.cut(); // the broker sees A's socket close, as when A's process dies
			}
			else {
				a.stop();
			}
			Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
				.until(() -> handled(billing) >= TOTAL);
			// anything handled twice would show now: the count stays at TOTAL once the queue has
			// handed out all it holds, while B settles what it still holds (a prefetch, milliseconds)
			Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.until(() -> readyMessages(queue) == 0);
			Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10))
				.until(() -> handled(billing) == TOTAL);
			a.stop();
			b.stop();

			Round result = new Round();
			result.atHandOver = atHandOver;
			result.overlaps = recorded.overlaps.get();
			Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
			Map<String, List<String>> trace = new ConcurrentHashMap<>();
			new JdbcTemplate(billing.dataSource()).query("SELECT ordering_key, seq, consumer, redelivery FROM "
					+ billing.name() + ".handled ORDER BY n", (row) -> {
						result.rows++;
						if ("A".equals(row.getString(3))) {
							result.byA++;
						}
						else {
							result.byB++;
						}
						if (row.getInt(4) > 0) {
							result.redelivered++;
						}
						byKey.computeIfAbsent(row.getString(1), (k) -> new ArrayList<>()).add(row.getInt(2));
						trace.computeIfAbsent(row.getString(1), (k) -> new ArrayList<>())
							.add(row.getInt(2) + "/" + row.getString(3) + (row.getInt(4) > 0 ? "r" : ""));
					});
			List<Integer> expected = new ArrayList<>();
			for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
				expected.add(seq);
			}
			for (int k = 0; k < KEYS; k++) {
				String key = "key-" + k;
				List<Integer> seqs = byKey.getOrDefault(key, List.of());
				if (!seqs.equals(expected)) {
					result.disordered.add(key + " committed " + trace.get(key) + " attempts " + recorded.calls.get(key));
				}
			}
			Integer receivedAgain = new JdbcTemplate(billing.dataSource()).queryForObject("SELECT count(*) FROM "
					+ billing.tables().qualifiedInboxState() + " WHERE receive_count > 1", Integer.class);
			result.receivedAgain = (receivedAgain != null) ? receivedAgain : 0;
			result.attempts = recorded.calls.values().stream().mapToInt(List::size).sum();
			return result;
		}
		finally {
			for (int i = resources.size() - 1; i >= 0; i--) {
				try {
					resources.get(i).close();
				}
				catch (Exception ex) {
					// best effort
				}
			}
			try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
				channel.queueDelete(queue);
				channel.queueDelete(queue + "_error");
			}
			orders.close();
			billing.close();
		}
	}

	/** Writes every key's messages in the outbox, relays them, and waits until the queue holds them all. */
	private void publishBacklog(List<AutoCloseable> resources, TestSchema orders, String queue) throws Exception {
		TestOutbox outbox = TestOutbox.on(orders);
		OutboxPublisher publisher = outbox.publisher();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(orders.dataSource()));
		for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
			for (int k = 0; k < KEYS; k++) {
				Step step = new Step("key-" + k, seq);
				transactions.executeWithoutResult((status) -> publisher.publish(step, (o) -> o.orderingKey(step.key())));
			}
		}
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMillis(20), 2,
				Duration.ofMillis(200), 100, 0);
		Transport transport = TestRabbit.get().transport().build();
		resources.add(transport);
		TestRelay relay = TestRelay.builder(outbox.store(), transport)
			.settings(2, 100, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(5), retry, 3,
					Duration.ofSeconds(1))
			.start();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
				.until(() -> channel.queueDeclarePassive(queue).getMessageCount() >= TOTAL);
			// more than TOTAL is legal (a scope whose lease ran out on a slow machine goes out
			// again): the inbox takes the copies as duplicates, which the checks below count
		}
		finally {
			relay.stop();
		}
	}

	private static KeyedRecorder<Step> recorder(TestSchema billing, String name, KeyedRecorder.Shared recorded) {
		return new KeyedRecorder<>(billing, name, Step::key, Step::seq, recorded);
	}

	private static ReceiveEndpoint receiveEndpoint(String queue, Map<String, Object> arguments,
			int concurrency, MessageHandler<Step> handler) {
		return ReceiveEndpoint.on(queue).withConcurrency(concurrency).withQueueArguments(arguments)
			.handle(Step.class, handler);
	}

	private static int readyMessages(String queue) throws Exception {
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			return channel.queueDeclarePassive(queue).getMessageCount();
		}
	}

	private static int handled(TestSchema billing) {
		Integer count = new JdbcTemplate(billing.dataSource())
			.queryForObject("SELECT count(*) FROM " + billing.name() + ".handled", Integer.class);
		return (count != null) ? count : 0;
	}

	private static TestReceiveEndpoint endpoint(List<AutoCloseable> resources, TestSchema billing, TcpProxy proxy,
			ReceiveEndpoint consumers) {
		DeliveryProcessor processor = new TestInbox(billing).deliveryProcessor(RetryPolicy.defaults(), 3);
		Transport transport = ((proxy != null) ? TestRabbit.get().transport(proxy) : TestRabbit.get().transport())
			.build();
		resources.add(transport);
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.create(transport, processor, List.of(consumers),
				Duration.ofSeconds(20));
		resources.add(endpoint);
		return endpoint;
	}

	/** One event of an aggregate. */
	@MessageType("test.handover-step")
	public record Step(String key, int seq) {
	}

	static final class Round {

		int atHandOver;

		int rows;

		int byA;

		int byB;

		int redelivered;

		int attempts;

		int receivedAgain;

		int overlaps;

		final List<String> disordered = new ArrayList<>();

		@Override
		public String toString() {
			return TOTAL + " messages, hand-over after " + this.atHandOver + ", committed rows " + this.rows + " (A "
					+ this.byA + ", B " + this.byB + ", with x-delivery-count>0 " + this.redelivered + "), handler calls "
					+ this.attempts + ", inbox rows received more than once " + this.receivedAgain + ", overlaps "
					+ this.overlaps + ", keys violated " + this.disordered.size()
					+ (this.disordered.isEmpty() ? "" : " e.g. " + this.disordered.subList(0, Math.min(3, this.disordered.size())));
		}

	}

}
