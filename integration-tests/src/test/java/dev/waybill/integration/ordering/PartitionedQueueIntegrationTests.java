package dev.waybill.integration.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.integration.support.Resources;
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
 * An ordered endpoint with 4 partitions, consumed by instances that join and leave while keyed
 * messages are written and relayed: A consumes alone; B joins, and the two share the partitions
 * (both handle messages afterwards); A stops gracefully and B takes its partitions; C joins and
 * takes a share; C's connection is cut (as when its process dies) and B takes its partitions back.
 * Every key's messages must be in effect once each, in commit order, never two of one key at once.
 * Needs the broker's {@code rabbitmq_consistent_hash_exchange} plugin ({@code .ci/run} enables it).
 */
class PartitionedQueueIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final int KEYS = 40;

	private static final int EVENTS_PER_KEY = 60;

	private static final int TOTAL = KEYS * EVENTS_PER_KEY;

	private final Resources resources = new Resources();

	private TestSchema orders;

	private TestSchema billing;

	private String queue;

	@BeforeEach
	void setUp() {
		this.orders = TestSchema.withWaybillTables("partitioned_orders");
		this.billing = TestSchema.withWaybillTables("partitioned_billing");
		KeyedRecorder.createTable(this.billing);
		this.queue = "partitioned-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.resources.close();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			for (int i = 0; i < PARTITIONS; i++) {
				channel.queueDelete(this.queue + ".partition-" + i);
			}
			channel.queueDelete(this.queue + "_error");
			channel.exchangeDelete(this.queue + ".partitions");
		}
		this.orders.close();
		this.billing.close();
	}

	@Test
	void instancesShareThePartitionsAndEveryKeyStaysInOrderAsTheyJoinAndLeave() throws Exception {
		KeyedRecorder.Shared recorded = new KeyedRecorder.Shared();
		TestReceiveEndpoint a = endpoint(null, recorder("A", recorded));
		TestReceiveEndpoint b = endpoint(null, recorder("B", recorded));
		TcpProxy proxy = TcpProxy.start(TestRabbit.get().host(), TestRabbit.get().port());
		this.resources.add(proxy);
		TestReceiveEndpoint c = endpoint(proxy, recorder("C", recorded));
		a.start();
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(a::isConsuming);
		startRelay();
		CompletableFuture<Void> writing = CompletableFuture.runAsync(this::write);

		awaitHandled("A", 1);
		b.start();
		// shared: both go on handling messages once B took its partitions
		awaitHandled("B", 1);
		int byA = handledBy("A");
		int byB = handledBy("B");
		awaitHandled("A", byA + 20);
		awaitHandled("B", byB + 20);

		a.stop();
		byB = handledBy("B");
		awaitHandled("B", byB + 1);
		c.start();
		awaitHandled("C", 1);
		proxy.cut(); // the broker sees C's socket close, as when its process dies
		byB = handledBy("B");
		awaitHandled("B", byB + 1);

		writing.get(2, TimeUnit.MINUTES);
		Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
			.until(() -> handledBy(null) >= TOTAL);
		// a key handled twice would show now: the count stays at TOTAL while B settles what it holds
		Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10))
			.until(() -> handledBy(null) == TOTAL);

		assertThat(recorded.overlaps.get()).as("two messages of one key handled at once").isZero();
		assertThat(disorderedKeys(recorded)).as("keys whose messages were not in effect once each, in order")
			.isEmpty();
		System.out.println("PARTITIONED " + TOTAL + " messages over " + PARTITIONS + " partitions: A " + handledBy("A")
				+ ", B " + handledBy("B") + ", C " + handledBy("C"));
	}

	@Test
	void aFreePartitionAnOperatorDeletedIsDeclaredAgainByTheInstanceThatTakesIt() throws Exception {
		try (Connection connection = TestRabbit.get().connect()) {
			// another instance, as far as A can tell: A takes half the partitions
			Channel other = connection.createChannel();
			String members = this.queue + ".partitions.members";
			other.queueDeclare(members, false, false, true, null);
			other.basicConsume(members, true, new com.rabbitmq.client.DefaultConsumer(other));
			TestReceiveEndpoint a = endpoint(null, recorder("A", new KeyedRecorder.Shared()));
			a.start();
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(a::isConsuming);
			List<String> free = new ArrayList<>();
			for (int i = 0; i < PARTITIONS; i++) {
				String partition = this.queue + ".partition-" + i;
				if (other.queueDeclarePassive(partition).getConsumerCount() == 0) {
					free.add(partition);
				}
			}
			assertThat(free).hasSize(PARTITIONS / 2);
			for (String partition : free) {
				other.queueDelete(partition);
			}

			other.close(); // the other instance leaves: A takes the rest

			// well before the periodic topology check (30 s) would declare them
			Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
				.until(() -> free.stream().allMatch((partition) -> consumers(connection, partition) == 1));
			assertThat(a.isConsuming()).isTrue();
		}
	}

	/** A queue's consumers, or -1 while it does not exist (which closes the channel asking). */
	private static int consumers(Connection connection, String queue) {
		try (Channel channel = connection.createChannel()) {
			return channel.queueDeclarePassive(queue).getConsumerCount();
		}
		catch (Exception ex) {
			return -1;
		}
	}

	/** Writes every key's events, each in a transaction of its own, at a pace the hand-overs fall within. */
	private void write() {
		OutboxPublisher publisher = TestOutbox.on(this.orders).publisher();
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(this.orders.dataSource()));
		long startedAt = System.nanoTime();
		for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
			for (int k = 0; k < KEYS; k++) {
				Step step = new Step("key-" + k, seq);
				transactions.executeWithoutResult((status) -> publisher.publish(step, (o) -> o.orderingKey(step.key())));
			}
			// about 10 seconds in all
			long due = startedAt + TimeUnit.MILLISECONDS.toNanos(10_000L * (seq + 1) / EVENTS_PER_KEY);
			long wait = due - System.nanoTime();
			if (wait > 0) {
				java.util.concurrent.locks.LockSupport.parkNanos(wait);
			}
		}
	}

	private void startRelay() {
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMillis(20), 2,
				Duration.ofMillis(200), 100, 0);
		Transport transport = TestRabbit.get().transport().build();
		this.resources.add(transport);
		TestRelay relay = TestRelay.builder(TestOutbox.on(this.orders).store(), transport)
			.settings(2, 100, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(5), retry, 3,
					Duration.ofSeconds(1))
			.start();
		AutoCloseable stopRelay = relay::stop;
		this.resources.add(stopRelay);
	}

	private List<String> disorderedKeys(KeyedRecorder.Shared recorded) {
		Map<String, List<Integer>> byKey = new LinkedHashMap<>();
		new JdbcTemplate(this.billing.dataSource()).query("SELECT ordering_key, seq FROM " + this.billing.name()
				+ ".handled ORDER BY n", (row) -> {
					byKey.computeIfAbsent(row.getString(1), (k) -> new ArrayList<>()).add(row.getInt(2));
				});
		List<Integer> expected = new ArrayList<>();
		for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
			expected.add(seq);
		}
		List<String> disordered = new ArrayList<>();
		for (int k = 0; k < KEYS; k++) {
			String key = "key-" + k;
			if (!expected.equals(byKey.get(key))) {
				disordered.add(key + " committed " + byKey.get(key) + ", calls " + recorded.calls.get(key));
			}
		}
		return disordered;
	}

	private void awaitHandled(String consumer, int count) {
		Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
			.until(() -> handledBy(consumer) >= count);
	}

	/** Messages in effect, by one instance or (null) by all. */
	private int handledBy(String consumer) {
		JdbcTemplate jdbc = new JdbcTemplate(this.billing.dataSource());
		String table = this.billing.name() + ".handled";
		Integer count = (consumer != null)
				? jdbc.queryForObject("SELECT count(*) FROM " + table + " WHERE consumer = ?", Integer.class, consumer)
				: jdbc.queryForObject("SELECT count(*) FROM " + table, Integer.class);
		return (count != null) ? count : 0;
	}

	private KeyedRecorder<Step> recorder(String name, KeyedRecorder.Shared recorded) {
		return new KeyedRecorder<>(this.billing, name, Step::key, Step::seq, recorded);
	}

	private TestReceiveEndpoint endpoint(TcpProxy proxy, KeyedRecorder<Step> handler) {
		DeliveryProcessor processor = new TestInbox(this.billing).deliveryProcessor(RetryPolicy.defaults(), 3);
		Transport transport = ((proxy != null) ? TestRabbit.get().transport(proxy) : TestRabbit.get().transport())
			.build();
		this.resources.add(transport);
		ReceiveEndpoint endpoint = ReceiveEndpoint.on(this.queue).withConcurrency(4).withPartitions(PARTITIONS)
			.handle(Step.class, handler);
		TestReceiveEndpoint consuming = TestReceiveEndpoint.create(transport, processor, List.of(endpoint),
				Duration.ofSeconds(20));
		this.resources.add(consuming);
		return consuming;
	}

	/** One event of an aggregate. */
	@MessageType("test.partitioned-step")
	public record Step(String key, int seq) {
	}

}
