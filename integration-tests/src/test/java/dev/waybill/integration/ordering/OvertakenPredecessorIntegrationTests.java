package dev.waybill.integration.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.NoOpMetricsCollector;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitConnectionFactoryCustomizer;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * A partitioned consumer over RabbitMQ and PostgreSQL keeps a key's order when a delivery arrives
 * before its predecessor (the broker refused the predecessor and took it, and the relay publishes
 * the predecessor again): the crafted deliveries name their predecessor in
 * {@code waybill-ordering-previous}, as the relay's runs do.
 */
class OvertakenPredecessorIntegrationTests {

	static final String QUEUE = "waybill-test.ordering.overtaken";

	static final String TYPE = "waybill-test.ordering.posting";

	/** The sequence numbers each key's handler saw, in the order it saw them. */
	static final Map<String, List<Integer>> handled = new ConcurrentHashMap<>();

	private TestSchema schema;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		handled.clear();
		this.schema = TestSchema.create("overtaken");
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		deleteTopology();
		// The consumer declares its queue and exchange before anything is published to them.
		service("10m").run((context) -> {
		});
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void aDeliveryAheadOfItsPredecessorWaitsForItAndTheKeyRunsInOrder() throws Exception {
		String key = "account-7";
		// A key of the same lane (the consumer has two): handled after the held ones would be, if
		// they were not held.
		String sameLane = keyOnTheLaneOf(key);
		String first = UUID.randomUUID().toString();
		String second = UUID.randomUUID().toString();
		service("10m").run((context) -> {
			publish(second, key, 2, first);
			publish(UUID.randomUUID().toString(), key, 3, second);
			publish(UUID.randomUUID().toString(), sameLane, 1, null);
			await().until(() -> handled.containsKey(sameLane));
			assertThat(handled.get(key)).as("held until their predecessor arrives").isNull();
			publish(first, key, 1, null);
			await().until(() -> handled.getOrDefault(key, List.of()).size() == 3);
			assertThat(handled.get(key)).containsExactly(1, 2, 3);
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
	}

	@Test
	void aSecondCopyOfAHeldDeliveryRunsOnceAfterItsPredecessor() throws Exception {
		String key = "account-8";
		String first = UUID.randomUUID().toString();
		String second = UUID.randomUUID().toString();
		service("10m").run((context) -> {
			publish(second, key, 2, first);
			// the relay publishes the refused one and everything behind it again, in order
			publish(first, key, 1, null);
			publish(second, key, 2, first);
			await().until(() -> processed(first) && processed(second));
			assertThat(handled.get(key)).containsExactly(1, 2);
		});
		assertThat(queueIsEmpty()).as("every copy acknowledged").isTrue();
	}

	@Test
	void aPredecessorTheConsumerRecordedEarlierLetsItsSuccessorGoAtOnce() throws Exception {
		String key = "account-9";
		String first = UUID.randomUUID().toString();
		service("10m").run((context) -> {
			publish(first, key, 1, null);
			await().until(() -> processed(first));
		});
		// A new consumer (a restart, another instance): it never passed the predecessor on, its inbox has it.
		service("10m").run((context) -> {
			publish(UUID.randomUUID().toString(), key, 2, first);
			await().until(() -> handled.get(key).size() == 2);
			assertThat(handled.get(key)).containsExactly(1, 2);
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
	}

	@Test
	void aPredecessorThatNeverComesHoldsItsKeyForTheWaitOnlyAndTheRestKeepsItsOrder() throws Exception {
		String key = "account-10";
		String second = UUID.randomUUID().toString();
		service("700ms").run((context) -> {
			long published = System.nanoTime();
			publish(second, key, 2, UUID.randomUUID().toString()); // its predecessor was dropped by the queue
			publish(UUID.randomUUID().toString(), key, 3, second);
			await().until(() -> handled.getOrDefault(key, List.of()).size() == 2);
			assertThat(Duration.ofNanos(System.nanoTime() - published)).as("held for the wait")
				.isGreaterThanOrEqualTo(Duration.ofMillis(700));
			assertThat(handled.get(key)).containsExactly(2, 3);
		});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
	}

	@Test
	void aOneLaneConsumerThatHoldsADeliveryAcknowledgesTheLaterOnesWithoutCoveringIt() throws Exception {
		String key = "account-11";
		String first = UUID.randomUUID().toString();
		String second = UUID.randomUUID().toString();
		// Queued before the consumer starts, so the other key's deliveries reach its one lane together,
		// as a batch: acknowledged with one multiple frame, they would settle the held one unhandled
		// (and its own acknowledgement later would fail the channel, which delivers everything again).
		publish(second, key, 2, first);
		for (int i = 1; i <= 5; i++) {
			publish(UUID.randomUUID().toString(), "other", i, null);
		}
		Deliveries deliveries = new Deliveries();
		service("10m").withPropertyValues("waybill.inbox.concurrency=1")
			.withBean(WaybillRabbitConnectionFactoryCustomizer.class,
					() -> (factory) -> factory.setMetricsCollector(deliveries))
			.run((context) -> {
				await().until(() -> handled.getOrDefault("other", List.of()).size() == 5);
				assertThat(handled.get(key)).as("held").isNull();
				publish(first, key, 1, null);
				await().until(() -> handled.getOrDefault(key, List.of()).size() == 2);
				assertThat(handled.get(key)).containsExactly(1, 2);
			});
		assertThat(queueIsEmpty()).as("every delivery acknowledged").isTrue();
		assertThat(deliveries.count).as("each delivered once: nothing came back").hasValue(7);
	}

	/** Counts the deliveries of Waybill's connections. */
	private static final class Deliveries extends NoOpMetricsCollector {

		final AtomicInteger count = new AtomicInteger();

		@Override
		public void consumedMessage(Channel channel, long deliveryTag, boolean autoAck) {
			this.count.incrementAndGet();
		}

		@Override
		public void consumedMessage(Channel channel, long deliveryTag, String consumerTag) {
			this.count.incrementAndGet();
		}

	}

	/** A key whose hash puts it on the same of the consumer's two lanes as {@code key}. */
	private static String keyOnTheLaneOf(String key) {
		for (int i = 0;; i++) {
			String candidate = "other-" + i;
			if (Math.floorMod(candidate.hashCode(), 2) == Math.floorMod(key.hashCode(), 2)) {
				return candidate;
			}
		}
	}

	private ApplicationContextRunner service(String predecessorWait) {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withUserConfiguration(Postings.class)
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.inbox.concurrency=2", "waybill.inbox.predecessor-wait=" + predecessorWait);
	}

	private void publish(String messageId, String key, int seq, String previous) throws Exception {
		Map<String, Object> headers = new HashMap<>();
		headers.put(PublishOptions.ORDERING_KEY_HEADER, key);
		if (previous != null) {
			headers.put(PublishOptions.ORDERING_PREVIOUS_HEADER, previous);
		}
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
			.type(TYPE)
			.contentType("application/json")
			.deliveryMode(2)
			.headers(headers)
			.build();
		byte[] body = ("{\"key\":\"" + key + "\",\"seq\":" + seq + "}").getBytes(StandardCharsets.UTF_8);
		this.channel.basicPublish(TYPE, "", properties, body);
	}

	private boolean processed(String messageId) {
		return Boolean.TRUE.equals(new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT EXISTS (SELECT 1 FROM "
				+ this.schema.name() + ".inbox_state WHERE message_id = ?::uuid AND processed_at IS NOT NULL)",
				Boolean.class, messageId));
	}

	/** Once the consumer stopped: whether it acknowledged every delivery (what it did not comes back). */
	private boolean queueIsEmpty() throws Exception {
		return this.channel.queueDeclarePassive(QUEUE).getMessageCount() == 0;
	}

	private void deleteTopology() throws Exception {
		this.channel.queueDelete(QUEUE);
		this.channel.queueDelete(QUEUE + "_error");
		this.channel.exchangeDelete(TYPE);
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20));
	}

	@MessageType(TYPE)
	record Posting(String key, int seq) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Postings {

		@Bean
		PostingHandler postingHandler() {
			return new PostingHandler();
		}

	}

	@Consumer(queue = QUEUE, prefetch = 16)
	static class PostingHandler implements MessageHandler<Posting> {

		@Override
		public void handle(Posting posting, MessageContext context) {
			handled.computeIfAbsent(posting.key(), (key) -> new CopyOnWriteArrayList<>()).add(posting.seq());
		}

	}

}
