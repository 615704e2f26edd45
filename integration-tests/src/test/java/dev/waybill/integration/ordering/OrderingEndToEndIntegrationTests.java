package dev.waybill.integration.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import dev.waybill.integration.relay.RelayProcess;
import dev.waybill.integration.support.Resources;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.test.ForwardingTransport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * Ordering per key end to end, on PostgreSQL and RabbitMQ: 100 keys x 50 events, each
 * event its own transaction, written by 4 threads while two in-process relays (whose transport
 * fails some publishes, before or after the broker took them) and a relay in another JVM (killed
 * mid-way) publish them; two consumer instances with 4 threads each share the queue as single
 * active consumer, and the active one is stopped mid-way. Every key's events are handled in
 * order, each once, never two of one key at a time.
 */
class OrderingEndToEndIntegrationTests {

	private static final int KEYS = 100;

	private static final int EVENTS_PER_KEY = 50;

	private final Resources resources = new Resources();

	private TestSchema orders;

	private TestSchema billing;

	private String queue;

	@BeforeEach
	void setUp() {
		this.orders = TestSchema.withWaybillTables("ordering_orders");
		this.billing = TestSchema.withWaybillTables("ordering_billing");
		KeyedRecorder.createTable(this.billing);
		this.queue = "ordering-e2e-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.resources.close();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queueDelete(this.queue);
			channel.queueDelete(this.queue + "_error");
		}
		this.orders.close();
		this.billing.close();
	}

	@Test
	void everyKeysEventsAreHandledInCommitOrderOnceDespiteFailuresAKilledRelayAndAConsumerHandOver() throws Exception {
		KeyedRecorder.Shared recorded = new KeyedRecorder.Shared();
		TestReceiveEndpoint first = endpoint(receiveEndpoint(recorder("first", recorded)));
		TestReceiveEndpoint second = endpoint(receiveEndpoint(recorder("second", recorded)));
		first.start();
		second.start();

		AtomicInteger injected = new AtomicInteger();
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMillis(20), 2,
				Duration.ofMillis(200), 100, 0);
		TestOutbox outbox = TestOutbox.on(this.orders);
		for (int i = 0; i < 2; i++) {
			Transport transport = TestRabbit.get().transport().build();
			this.resources.add(transport);
			TestRelay relay = TestRelay.builder(outbox.store(), new FailingTransport(transport, injected))
				.settings(2, 50, Duration.ofSeconds(3), Duration.ofMillis(100), Duration.ofSeconds(5), retry, 3,
						Duration.ofSeconds(1))
				.start();
			this.resources.add(relay);
		}
		Process child = startRelayProcess(Duration.ofSeconds(2), 25);
		this.resources.add(child::destroyForcibly);

		OutboxPublisher publisher = outbox.publisher();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.orders.dataSource()));
		ExecutorService writers = Executors.newFixedThreadPool(4);
		List<Future<?>> written = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			int writer = w;
			written.add(writers.submit(() -> {
				for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
					for (int k = writer; k < KEYS; k += 4) {
						Step step = new Step("key-" + k, seq);
						transactions.executeWithoutResult((status) -> publisher.publish(step,
								(o) -> o.orderingKey(step.key())));
					}
				}
			}));
		}

		int total = KEYS * EVENTS_PER_KEY;
		Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> handled() >= total / 8);
		child.destroyForcibly(); // SIGKILL: its leases expire and the others take its scopes over
		assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
		Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> handled() >= total / 2);
		// The active consumer stops; the broker hands the queue to the other instance.
		// The first to consume a single-active-consumer queue is its active consumer.
		first.stop();
		for (Future<?> writer : written) {
			writer.get(3, TimeUnit.MINUTES);
		}
		writers.shutdown();
		Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
			.until(() -> handled() >= total);

		JdbcTemplate billingJdbc = new JdbcTemplate(this.billing.dataSource());
		Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
		Map<String, List<String>> trace = new ConcurrentHashMap<>();
		billingJdbc.query("SELECT ordering_key, seq, n, consumer FROM " + this.billing.name() + ".handled ORDER BY n",
				(row) -> {
					byKey.computeIfAbsent(row.getString(1), (k) -> new ArrayList<>()).add(row.getInt(2));
					trace.computeIfAbsent(row.getString(1), (k) -> new ArrayList<>())
						.add(row.getInt(2) + "@" + row.getLong(3) + "/" + row.getString(4));
				});
		List<Integer> expected = new ArrayList<>();
		for (int seq = 0; seq < EVENTS_PER_KEY; seq++) {
			expected.add(seq);
		}
		assertThat(byKey).hasSize(KEYS);
		List<String> disordered = byKey.entrySet().stream().filter((e) -> !e.getValue().equals(expected))
			.map((e) -> e.getKey() + ": " + trace.get(e.getKey())).toList();
		assertThat(disordered).as("keys whose events were not handled in order, each once").isEmpty();
		assertThat(recorded.overlaps.get()).as("two events of one key handled at once").isZero();
		assertThat(injected.get()).as("publishes failed on purpose").isPositive();
		Integer redelivered = billingJdbc.queryForObject("SELECT count(*) FROM " + this.billing.tables().qualifiedInboxState()
				+ " WHERE receive_count > 1", Integer.class);
		System.out.println("Ordering end to end: " + total + " events, " + injected.get() + " publishes failed on "
				+ "purpose, " + redelivered + " messages received more than once (dropped by the inbox)");
		assertThat(redelivered).as("duplicates reached the consumer and were dropped").isPositive();
	}

	private KeyedRecorder<Step> recorder(String name, KeyedRecorder.Shared recorded) {
		return new KeyedRecorder<>(this.billing, name, Step::key, Step::seq, recorded);
	}

	private ReceiveEndpoint receiveEndpoint(KeyedRecorder<Step> recorder) {
		return ReceiveEndpoint.on(this.queue)
			.withConcurrency(4)
			.withQueueArguments(Map.of("x-single-active-consumer", true))
			.handle(Step.class, recorder);
	}

	private int handled() {
		Integer count = new JdbcTemplate(this.billing.dataSource())
			.queryForObject("SELECT count(*) FROM " + this.billing.name() + ".handled", Integer.class);
		return (count != null) ? count : 0;
	}

	private TestReceiveEndpoint endpoint(ReceiveEndpoint consumers) {
		DeliveryProcessor processor = new TestInbox(this.billing).deliveryProcessor(RetryPolicy.defaults(), 3);
		Transport transport = TestRabbit.get().transport().build();
		this.resources.add(transport);
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.create(transport, processor, List.of(consumers),
				Duration.ofSeconds(20));
		this.resources.add(endpoint);
		return endpoint;
	}

	private Process startRelayProcess(Duration lease, int batchSize) throws Exception {
		return RelayProcess.builder(this.orders.name(), lease, batchSize)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
	}

	/** One event of an aggregate. */
	@MessageType("test.ordering-step")
	public record Step(String key, int seq) {
	}

	/**
	 * The real transport, failing about 6% of publishes as the broker would with a nack: half
	 * before the message reaches the broker, half after (so the broker has it and it is
	 * published again: a duplicate).
	 */
	static final class FailingTransport extends ForwardingTransport {

		private final AtomicInteger injected;

		FailingTransport(Transport delegate, AtomicInteger injected) {
			super(delegate);
			this.injected = injected;
		}

		@Override
		protected CompletableFuture<Void> publish(TransportChannel channel, OutboxMessage message) {
			double dice = ThreadLocalRandom.current().nextDouble();
			if (dice < 0.03) {
				this.injected.incrementAndGet();
				return CompletableFuture.failedFuture(
						new TransportException(TransportException.Kind.MESSAGE, "injected: nacked before sending"));
			}
			CompletableFuture<Void> published = channel.publish(message);
			if (dice < 0.06) {
				this.injected.incrementAndGet();
				return published.thenCompose((ok) -> CompletableFuture.failedFuture(
						new TransportException(TransportException.Kind.MESSAGE, "injected: nacked after sending")));
			}
			return published;
		}

	}

}
