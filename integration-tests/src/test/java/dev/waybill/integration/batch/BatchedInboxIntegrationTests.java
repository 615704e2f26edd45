package dev.waybill.integration.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.NoOpMetricsCollector;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.integration.support.ChildJvm;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitConnectionFactoryCustomizer;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The batched inbox over PostgreSQL and RabbitMQ: a consuming thread runs the deliveries
 * it holds in one transaction and acknowledges them after the commit. The deliveries are queued before the consumer starts, so they arrive together and fill
 * batches.
 */
class BatchedInboxIntegrationTests {

	private static final String ERROR_QUEUE = Ledger.QUEUE + "_error";

	private TestSchema ledger;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		Ledger.reset();
		this.ledger = TestSchema.create("ledger");
		this.ledger.execute("CREATE TABLE " + this.ledger.name() + ".entries (entry_id uuid NOT NULL, mode text NOT NULL)");
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		deleteTopology();
		// The consumer declares its queue; stopped, it leaves the queue to fill.
		ledgerService().run((context) -> {
		});
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.ledger.close();
	}

	@Test
	void aFailingHandlerAmongSuccessesFailsAloneAndIsRetriedAlone() throws Exception {
		List<UUID> ok = new ArrayList<>();
		UUID failing = UUID.randomUUID();
		Map<UUID, String> messageIds = new java.util.HashMap<>();
		for (int i = 0; i < 12; i++) {
			UUID entry = (i == 5) ? failing : UUID.randomUUID();
			if (i != 5) {
				ok.add(entry);
			}
			messageIds.put(entry, publish(entry, (i == 5) ? "fail" : "ok", "", i));
		}
		ledgerService().run((context) -> {
			GetResponse fault = await().until(() -> this.channel.basicGet(ERROR_QUEUE, true), (r) -> r != null);
			assertThat(fault.getProps().getMessageId()).isEqualTo(messageIds.get(failing));
			await().until(() -> processedRows() == ok.size());
			await().until(() -> queueIsEmpty());
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		assertThat(sharedTransactions(ok)).as("successes committed together").isGreaterThan(0);
		for (UUID entry : ok) {
			assertThat(entryRows(entry)).isOne();
			// a handler before the failing one in its batch ran a second time after the rollback
			boolean before = ok.indexOf(entry) < 5;
			assertThat(Ledger.runs.get(entry).get()).isBetween(1, before ? 2 : 1);
			assertThat(bookedScopes(messageIds.get(entry))).as("its consumer outbox").isOne();
		}
		assertThat(entryRows(failing)).as("its work rolled back").isZero();
		assertThat(bookedScopes(messageIds.get(failing))).as("nothing it published").isZero();
		assertThat(Ledger.runs.get(failing).get()).as("max-attempts, the batch's attempt the first").isEqualTo(3);
		assertThat(jdbc().queryForObject("SELECT attempts FROM " + this.ledger.name()
				+ ".inbox_state WHERE message_id = ?::uuid AND faulted_at IS NOT NULL", Integer.class,
				messageIds.get(failing))).isEqualTo(3);
	}

	@Test
	void anUnpartitionedConsumerAcknowledgesEachBatchWithOneFrame() throws Exception {
		AckFrames frames = consumeCountingAckFrames(24, (i) -> "", "waybill.inbox.partition-by-ordering-key=false");
		assertThat(frames.multiple).as("batches acknowledged at once").hasPositiveValue();
		assertThat(frames.all.get()).as("fewer frames than deliveries").isLessThan(24);
	}

	@Test
	void keyLanesSharingAChannelAcknowledgeEveryDeliveryOnceAndNothingComesBack() throws Exception {
		// Key lanes share the channel and acknowledge each delivery alone: a frame that settled a
		// delivery another lane still held would fail the channel or settle it unhandled.
		consumeCountingAckFrames(120, (i) -> "key-" + (i % 12));
	}

	/**
	 * Publishes {@code count} deliveries, consumes them with the ledger service and checks that each
	 * was handled once, acknowledged, and received once (no redelivery).
	 */
	private AckFrames consumeCountingAckFrames(int count, java.util.function.IntFunction<String> key,
			String... properties) throws Exception {
		List<UUID> entries = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			UUID entry = UUID.randomUUID();
			entries.add(entry);
			publish(entry, "ok", key.apply(i), i);
		}
		AckFrames frames = new AckFrames();
		ledgerService().withPropertyValues(properties)
			.withBean(WaybillRabbitConnectionFactoryCustomizer.class, () -> (factory) -> factory.setMetricsCollector(frames))
			.run((context) -> {
				await().until(() -> processedRows() == entries.size());
				await().until(() -> queueIsEmpty());
			});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		for (UUID entry : entries) {
			assertThat(entryRows(entry)).isOne();
		}
		assertThat(frames.consumed).as("each delivered once: nothing came back").hasValue(count);
		return frames;
	}

	/** Counts the acknowledgement frames and the deliveries of Waybill's connections. */
	private static final class AckFrames extends NoOpMetricsCollector {

		final AtomicInteger all = new AtomicInteger();

		final AtomicInteger multiple = new AtomicInteger();

		final AtomicInteger consumed = new AtomicInteger();

		@Override
		public void basicAck(Channel channel, long deliveryTag, boolean multiple) {
			this.all.incrementAndGet();
			if (multiple) {
				this.multiple.incrementAndGet();
			}
		}

		@Override
		public void consumedMessage(Channel channel, long deliveryTag, boolean autoAck) {
			this.consumed.incrementAndGet();
		}

		@Override
		public void consumedMessage(Channel channel, long deliveryTag, String consumerTag) {
			this.consumed.incrementAndGet();
		}

	}

	@Test
	void theSameMessageTwiceInOneBatchRunsOnceAndEveryCopyIsAcknowledged() throws Exception {
		UUID entry = UUID.randomUUID();
		String messageId = UUID.randomUUID().toString();
		List<UUID> others = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			UUID other = UUID.randomUUID();
			others.add(other);
			publish(other, "ok", "same", 10 + i);
			publishRaw(messageId, entry, "ok", "same", i);
		}
		UUID last = UUID.randomUUID();
		publish(last, "ok", "same", 20);
		ledgerService().run((context) -> {
			await().until(() -> processedRows() == 5);
			await().until(() -> receiveCount(messageId) == 3);
			await().until(() -> queueIsEmpty());
		});
		assertThat(queueIsEmpty()).as("every copy acknowledged").isTrue();
		// One key: one lane, in order; a batch is a run of it. The handler ran for the first copy, in
		// the transaction of the delivery after the last copy: the copies were in one batch.
		assertThat(Ledger.transactions.get(entry)).isEqualTo(Ledger.transactions.get(last));
		assertThat(entryRows(entry)).isOne();
		assertThat(Ledger.runs.get(entry).get()).isOne();
		assertThat(bookedScopes(messageId)).isOne();
	}

	@Test
	void aCrashBetweenTheCommitAndTheAcknowledgementsRunsNoHandlerAgain() throws Exception {
		List<UUID> entries = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			UUID entry = UUID.randomUUID();
			entries.add(entry);
			publish(entry, "ok", "crash", i); // one key: one lane, one batch
		}
		Process child = startLedgerProcess(entries.size() - 1);
		try {
			BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
			CompletableFuture<Boolean> committed = CompletableFuture.supplyAsync(() -> output.lines()
				.peek(System.out::println)
				.anyMatch((line) -> line.startsWith("COMMITTED ")));
			assertThat(committed.get(90, TimeUnit.SECONDS)).as("the child committed a batch").isTrue();
			assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("and halted before acknowledging it").isTrue();
			assertThat(child.exitValue()).isEqualTo(3);
		}
		finally {
			child.destroyForcibly();
		}
		assertThat(processedRows()).as("every batch committed").isEqualTo(entries.size());
		// The broker returns what the child had not acknowledged once it sees the connection closed.
		int committedInChild = await().until(() -> this.channel.queueDeclarePassive(Ledger.QUEUE).getMessageCount(),
				(count) -> count > 0);
		assertThat(committedInChild).as("the last batch, of several, committed and not acknowledged").isGreaterThan(1);

		ledgerService().run((context) -> {
			await().until(() -> processedRows() == entries.size());
			// the child's unacknowledged deliveries come back once the broker saw its connection close
			await().until(() -> redeliveredFoundProcessed() == committedInChild);
			await().until(() -> queueIsEmpty());
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		for (UUID entry : entries) {
			assertThat(entryRows(entry)).as("once in effect").isOne();
		}
		assertThat(Ledger.runs).as("no handler ran again").isEmpty();
		assertThat(redeliveredFoundProcessed()).as("redelivered, found processed").isEqualTo(committedInChild);
	}

	private int redeliveredFoundProcessed() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.ledger.name() + ".inbox_state WHERE receive_count = 2",
				Integer.class);
	}

	@Test
	void aDatabaseConnectionLostMidBatchReturnsTheBatchAndNothingIsLostOrDoubled() throws Exception {
		Ledger.gate = new java.util.concurrent.CountDownLatch(1);
		List<UUID> entries = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			UUID entry = UUID.randomUUID();
			entries.add(entry);
			publish(entry, (i == 4) ? "stall" : "ok", "outage", i); // one key: one lane, in order
		}
		ledgerService().run((context) -> {
			assertThat(Ledger.stalled.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(jdbc().queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, Ledger.stalledBackend))
				.isTrue();
			Ledger.gate.countDown();
			await().until(() -> processedRows() == entries.size());
			await().until(() -> queueIsEmpty());
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		for (UUID entry : entries) {
			assertThat(entryRows(entry)).as("nothing lost, nothing doubled").isEqualTo(1);
		}
		// The stalled batch holds the entry before it too (a batch is a run of the lane, and only a
		// lone first delivery is taken alone): its work was rolled back with the batch and run again.
		assertThat(Ledger.runs.get(entries.get(3)).get()).as("its batch was rolled back and run again").isEqualTo(2);
		assertThat(jdbc().queryForObject("SELECT count(*) FROM " + this.ledger.name()
				+ ".inbox_state WHERE attempts > 0 OR faulted_at IS NOT NULL", Integer.class))
			.as("an outage counts no attempt").isZero();
	}

	@Test
	void eachKeysDeliveriesRunInOrderAcrossBatches() throws Exception {
		List<String> keys = List.of("a", "b", "c", "d", "e", "f");
		int perKey = 40;
		List<UUID> entries = new ArrayList<>();
		for (int seq = 0; seq < perKey; seq++) {
			for (String key : keys) {
				UUID entry = UUID.randomUUID();
				entries.add(entry);
				publish(entry, "ok", key, seq);
			}
		}
		ledgerService().run((context) -> {
			await().until(() -> processedRows() == entries.size());
			await().until(() -> queueIsEmpty());
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		for (String key : keys) {
			List<Integer> expected = new ArrayList<>();
			for (int seq = 0; seq < perKey; seq++) {
				expected.add(seq);
			}
			assertThat(Ledger.sequences.get(key)).as("key " + key).isEqualTo(expected);
		}
		assertThat(sharedTransactions(entries)).as("in batches").isGreaterThan(entries.size() / 2);
	}

	/** How many of the entries ran in a transaction another of them ran in. */
	private static int sharedTransactions(Collection<UUID> entries) {
		Map<Long, Integer> counts = new java.util.HashMap<>();
		for (UUID entry : entries) {
			counts.merge(Ledger.transactions.get(entry), 1, Integer::sum);
		}
		return counts.values().stream().filter((count) -> count > 1).mapToInt((count) -> count - 1).sum();
	}

	private Process startLedgerProcess(int haltAfter) throws Exception {
		TestPostgres postgres = TestPostgres.get();
		return ChildJvm.builder(Ledger.class, List.of("waybill.test.halt-after-commit-of=" + haltAfter),
				"--spring.datasource.url=" + postgres.url(), "--spring.datasource.username=" + postgres.user(),
				"--spring.datasource.password=" + postgres.password(), "--waybill.schema=" + this.ledger.name(),
				"--spring.rabbitmq.host=" + TestRabbit.get().host(), "--spring.rabbitmq.port=" + TestRabbit.get().port(),
				"--waybill.inbox.batch.linger=200ms", "--spring.main.banner-mode=off")
			.start();
	}

	private ApplicationContextRunner ledgerService() {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(this.ledger.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withUserConfiguration(Ledger.class)
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "waybill.inbox.retry.interval=200ms",
					"waybill.inbox.retry.max-attempts=3", "waybill.inbox.retry.jitter=0",
					"waybill.inbox.batch.linger=100ms");
	}

	private String publish(UUID entry, String mode, String key, int seq) throws Exception {
		String messageId = UUID.randomUUID().toString();
		publishRaw(messageId, entry, mode, key, seq);
		return messageId;
	}

	private void publishRaw(String messageId, UUID entry, String mode, String key, int seq) throws Exception {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
			.type(Ledger.ENTRY_TYPE)
			.contentType("application/json")
			.deliveryMode(2)
			.headers(key.isEmpty() ? Map.of() : Map.of(PublishOptions.ORDERING_KEY_HEADER, key))
			.build();
		byte[] body = ("{\"id\":\"" + entry + "\",\"mode\":\"" + mode + "\",\"key\":\"" + key + "\",\"seq\":" + seq + "}")
			.getBytes(StandardCharsets.UTF_8);
		this.channel.basicPublish(Ledger.ENTRY_TYPE, "", properties, body);
	}

	private boolean queueIsEmpty() throws Exception {
		return this.channel.queueDeclarePassive(Ledger.QUEUE).getMessageCount() == 0;
	}

	private int entryRows(UUID entry) {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.ledger.name()
				+ ".entries WHERE entry_id = ? AND mode <> 'after'", Integer.class, entry);
	}

	/** The consumer-outbox scopes of an inbound message that hold a Booked event. */
	private int bookedScopes(String messageId) {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.ledger.name() + ".outbox_state s JOIN "
				+ this.ledger.name() + ".outbox_message m ON m.outbox_id = s.id WHERE m.message_type = ? "
				+ "AND s.inbound_message_id = ?::uuid AND s.consumer_id = ?", Integer.class, Ledger.BOOKED_TYPE,
				messageId, Ledger.QUEUE);
	}

	private int processedRows() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.ledger.name()
				+ ".inbox_state WHERE processed_at IS NOT NULL", Integer.class);
	}

	private int receiveCount(String messageId) {
		List<Integer> counts = jdbc().queryForList("SELECT receive_count FROM " + this.ledger.name()
				+ ".inbox_state WHERE message_id = ?::uuid", Integer.class, messageId);
		return counts.isEmpty() ? 0 : counts.get(0);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.ledger.dataSource());
	}

	private void deleteTopology() throws Exception {
		for (String queue : List.of(Ledger.QUEUE, ERROR_QUEUE)) {
			this.channel.queueDelete(queue);
		}
		for (String exchange : List.of(Ledger.ENTRY_TYPE, Ledger.BOOKED_TYPE)) {
			this.channel.exchangeDelete(exchange);
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50));
	}

}
