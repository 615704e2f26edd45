package dev.waybill.integration.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Waybill on a real 3-node RabbitMQ cluster ({@code scripts/rabbitmq-cluster}) with a quorum
 * consumer queue: messages stream through the outbox to a consumer while the node the relay's
 * connection is on is stopped, and then the node the consumer's connection is on is killed with
 * {@code kill -9} (one node when they share it). Every message takes effect exactly once. Runs
 * where {@code rabbitmq-server} is installed; fails, not skips, when the cluster does not start.
 */
@Timeout(300)
class RabbitClusterIntegrationTests {

	static final String QUEUE = "waybill-test.cluster.ledger";

	static final String TYPE = "waybill-test.cluster.entry";

	/** The least the stream publishes; it runs on until both failures are over. */
	private static final int MESSAGES = 2000;

	/** The instant (ms) each entry took effect, by sequence number. */
	static final Map<Integer, Long> handledAt = new ConcurrentHashMap<>();

	private static RabbitCluster cluster;

	private TestSchema schema;

	@BeforeAll
	static void startCluster() {
		Assumptions.assumeTrue(RabbitCluster.serverInstalled(), "rabbitmq-server is not installed");
		cluster = RabbitCluster.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void everyMessageTakesEffectOnceWhileTheConnectedNodesStopAndDie() {
		this.schema = TestSchema.create("cluster");
		this.schema.execute("CREATE TABLE " + this.schema.name() + ".ledger (seq int NOT NULL)");
		handledAt.clear();
		try {
			WaybillContext.runner(this.schema.name())
				.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class,
						WaybillRabbitAutoConfiguration.class, WaybillInboxAutoConfiguration.class,
						WaybillRabbitInboxAutoConfiguration.class))
				.withUserConfiguration(Ledger.class)
				.withPropertyValues("spring.rabbitmq.addresses=" + cluster.addresses(),
						"waybill.inbox.queue-arguments.x-queue-type=quorum", "waybill.rabbit.recovery-interval=500ms",
						"spring.rabbitmq.connection-timeout=3s", "waybill.rabbit.confirm-timeout=5s",
						"waybill.outbox.relay.poll-interval=100ms", "waybill.outbox.circuit-breaker.cool-down=1s",
						"waybill.inbox.retry.interval=200ms",
						"waybill.inbox.retry.jitter=0", "spring.datasource.hikari.maximum-pool-size=12")
				.run(this::streamThroughFailures);
		}
		finally {
			this.schema.close();
		}
	}

	@Test
	void aResourceAlarmThatBlocksPublishingIsToldWhenItBeginsAndWhenItEnds() throws Exception {
		List<Address> nodes = List.of(Address.parseAddresses(cluster.addresses()));
		String queue = "waybill-test.cluster.blocked." + UUID.randomUUID().toString().substring(0, 8);
		ConnectionFactory factory = new ConnectionFactory();
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, TestRabbit.TRANSPORT_LOGGER_NAME);
				Connection admin = factory.newConnection(nodes);
				// The held-back publish waits for as long as the alarm lasts, and raising and clearing
				// it through rabbitmqctl can take longer than the default confirm timeout.
				Transport transport = TestRabbit.transportOn(nodes, Duration.ofSeconds(90))) {
			admin.createChannel().queueDeclare(queue, false, true, true, null);
			TransportChannel channel = transport.openChannel();
			assertThat(channel.publish(message(queue))).succeedsWithin(Duration.ofSeconds(30));

			CompletableFuture<Void> heldBack;
			cluster.ctl(1, "set_vm_memory_high_watermark", "0.000001"); // every node blocks publishers
			try {
				heldBack = channel.publish(message(queue)); // a publish is what the broker blocks
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> logs.events().stream()
					.anyMatch((event) -> event.getLevel() == Level.WARN
							&& onANode(event.getFormattedMessage(), "RabbitMQ blocks Waybill's connection to ", nodes)
							&& event.getFormattedMessage().contains(" (low on memory): ")));
				assertThat(heldBack).isNotDone();
				assertThat(transport.blocked()).as("for the relay's health").contains("(low on memory) for PT");
			}
			finally {
				cluster.ctl(1, "set_vm_memory_high_watermark", "0.4");
			}
			assertThat(heldBack).succeedsWithin(Duration.ofSeconds(30));
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> logs.events().stream()
				.anyMatch((event) -> event.getLevel() == Level.INFO
						&& onANode(event.getFormattedMessage(), "RabbitMQ unblocked Waybill's connection to ", nodes)));
			assertThat(logs.atLeast(Level.WARN)).as("told once").hasSize(1);
			assertThat(transport.blocked()).isNull();
		}
	}

	private static OutboxMessage message(String queue) {
		return new OutboxMessage(UUID.randomUUID(), "", queue, "waybill-test.cluster.blocked", "text/plain", Map.of(),
				"held".getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
	}

	private void streamThroughFailures(AssertableApplicationContext context) throws Exception {
		assertThat(context).hasNotFailed();
		assertThat(context).hasBean(WaybillRabbitInboxAutoConfiguration.RECEIVE_ENDPOINT_BEAN_NAME);
		TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		AtomicInteger published = new AtomicInteger();
		Map<Integer, Long> publishedAt = new ConcurrentHashMap<>();
		AtomicBoolean stop = new AtomicBoolean();
		// about 100 messages a second, running through both failures however long the nodes take to
		// come back (a fixed count ran out while a slow node restarted: nothing was published after
		// the failure, so no recovery could be seen)
		AtomicBoolean failuresOver = new AtomicBoolean();
		Thread producer = new Thread(() -> {
			while (!stop.get() && (!failuresOver.get() || published.get() < MESSAGES)) {
				transactions.executeWithoutResult((status) -> {
					for (int i = 0; i < 5; i++) {
						int seq = published.incrementAndGet();
						publisher.publish(new Entry(UUID.randomUUID(), seq));
						publishedAt.put(seq, System.currentTimeMillis());
					}
				});
				sleep(50);
			}
		}, "cluster-test-producer");
		producer.start();
		try {
			awaitHandled(300, Duration.ofSeconds(30));

			// 1. stop the node of the relay's connection
			Map<String, Integer> connected = connectedNodes(1);
			int publisherNode = connected.get(TestRabbit.PUBLISHER_CONNECTION_NAME);
			int consumerNode = connected.get(TestReceiveEndpoint.CONNECTION_NAME);
			System.out.printf("cluster test: relay on node %d, consumer on node %d; stopping node %d%n", publisherNode,
					consumerNode, publisherNode);
			cluster.stopNode(publisherNode);
			long stopped = System.currentTimeMillis();
			long recovery = awaitRecovery(stopped, publishedAt);
			System.out.printf("cluster test: after stopping node %d, messages flow end to end again in %d ms%n",
					publisherNode, recovery);
			cluster.startNode(publisherNode);

			// 2. kill -9 the node of the consumer's connection
			int ask = (publisherNode == 1) ? 2 : 1;
			awaitHandled(handledAt.size() + 200, Duration.ofSeconds(60));
			connected = connectedNodes(ask);
			consumerNode = connected.get(TestReceiveEndpoint.CONNECTION_NAME);
			publisherNode = connected.get(TestRabbit.PUBLISHER_CONNECTION_NAME);
			System.out.printf("cluster test: relay on node %d, consumer on node %d; killing node %d%n", publisherNode,
					consumerNode, consumerNode);
			cluster.killNode(consumerNode);
			long killed = System.currentTimeMillis();
			recovery = awaitRecovery(killed, publishedAt);
			System.out.printf("cluster test: after kill -9 of node %d, messages flow end to end again in %d ms%n",
					consumerNode, recovery);
			cluster.startNode(consumerNode);
			failuresOver.set(true);

			producer.join(Duration.ofSeconds(60).toMillis());
			assertThat(producer.isAlive()).as("the producer finished").isFalse();
			assertThat(published.get()).isGreaterThanOrEqualTo(MESSAGES);
			awaitHandled(published.get(), Duration.ofSeconds(90));
		}
		finally {
			stop.set(true);
			producer.join(10_000);
		}
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		String ledger = this.schema.name() + ".ledger";
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + ledger, Integer.class)).as("effects")
			.isEqualTo(published.get());
		assertThat(jdbc.queryForObject("SELECT count(DISTINCT seq) FROM " + ledger, Integer.class))
			.as("distinct effects")
			.isEqualTo(published.get());
		assertThat(jdbc.queryForObject("SELECT min(seq) FROM " + ledger, Integer.class)).isEqualTo(1);
		assertThat(jdbc.queryForObject("SELECT max(seq) FROM " + ledger, Integer.class)).isEqualTo(published.get());
	}

	/**
	 * The time from a failure (the node is down) until a message published after it has taken
	 * effect: the relay and the consumer are both connected again.
	 */
	private static long awaitRecovery(long failedAt, Map<Integer, Long> publishedAt) {
		return Awaitility.await()
			.atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> handledAt.entrySet()
				.stream()
				.filter((entry) -> publishedAt.getOrDefault(entry.getKey(), Long.MAX_VALUE) > failedAt)
				.mapToLong(Map.Entry::getValue)
				.min()
				.orElse(-1), (at) -> at > 0) - failedAt;
	}

	private static void awaitHandled(int count, Duration within) {
		Awaitility.await().atMost(within).pollInterval(Duration.ofMillis(100)).until(() -> handledAt.size() >= count);
	}

	/** The node of the relay's connection and of the consumer's, by connection name, once each has one. */
	private static Map<String, Integer> connectedNodes(int askNode) {
		// Each look is a rabbitmqctl run, a VM of its own, slow on a busy machine.
		return Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
			Map<String, List<Integer>> nodes = cluster.nodesOf(askNode, TestRabbit.PUBLISHER_CONNECTION_NAME,
					TestReceiveEndpoint.CONNECTION_NAME);
			if (nodes.values().stream().anyMatch((connections) -> connections.size() != 1)) {
				return null;
			}
			Map<String, Integer> single = new HashMap<>();
			nodes.forEach((name, connections) -> single.put(name, connections.get(0)));
			return single;
		}, (nodes) -> nodes != null);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@MessageType(TYPE)
	record Entry(UUID id, int seq) {
	}

	@Consumer(queue = QUEUE, concurrency = 2, prefetch = 20)
	static class LedgerHandler implements MessageHandler<Entry> {

		private final JdbcTemplate jdbc;

		private final String table;

		LedgerHandler(JdbcTemplate jdbc, String table) {
			this.jdbc = jdbc;
			this.table = table;
		}

		@Override
		public void handle(Entry entry, MessageContext context) {
			this.jdbc.update("INSERT INTO " + this.table + " (seq) VALUES (?)", entry.seq());
			// after the transaction commits: only effects that count
			org.springframework.transaction.support.TransactionSynchronizationManager
				.registerSynchronization(new org.springframework.transaction.support.TransactionSynchronization() {

					@Override
					public void afterCommit() {
						handledAt.putIfAbsent(entry.seq(), System.currentTimeMillis());
					}

				});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Ledger {

		@Bean
		LedgerHandler ledgerHandler(JdbcTemplate jdbc, org.springframework.core.env.Environment environment) {
			return new LedgerHandler(jdbc, environment.getProperty("waybill.schema") + ".ledger");
		}

	}

	/** Whether {@code message} starts with {@code prefix} and names one node (host:port) of {@code nodes}. */
	private static boolean onANode(String message, String prefix, List<Address> nodes) {
		return nodes.stream().anyMatch((node) -> message.startsWith(prefix + "127.0.0.1:" + node.getPort() + " "));
	}

}
