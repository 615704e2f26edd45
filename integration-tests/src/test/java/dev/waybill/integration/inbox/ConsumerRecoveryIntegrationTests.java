package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.rabbitmq.client.Channel;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.ConsumerService;
import dev.waybill.outbox.rabbit.test.FailureAnalyses;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.test.TestSchema;

/**
 * A consuming service whose broker connection runs through a {@link TcpProxy}: it starts while the
 * broker is unreachable, and after every loss it declares its topology again, also onto a broker
 * that lost it, and consumes on, logging no error.
 */
class ConsumerRecoveryIntegrationTests {

	private static final String TYPE = "waybill-test.consumer-recovery.ping";

	private TestSchema schema;

	private TestTopology topology;

	private TcpProxy proxy;

	private String queue;

	private String otherQueue;

	private final Pings pings = new Pings();

	@BeforeEach
	void setUp() {
		this.proxy = TestRabbit.get().proxy();
		this.topology = TestRabbit.get().topology("consumer-recovery");
		this.topology.deleteLater(TYPE);
		this.queue = this.topology.uniqueName("pings");
		this.otherQueue = this.topology.uniqueName("other-pings");
		this.schema = TestSchema.create("recovery");
	}

	@AfterEach
	void tearDown() {
		this.pings.gate.countDown();
		this.proxy.close();
		for (String name : List.of(this.otherQueue, this.otherQueue + "_error")) {
			try {
				this.topology.channel().queueDelete(name);
			}
			catch (IOException | RuntimeException ex) {
				// not declared
			}
		}
		ConsumerService.tearDown(this.topology, this.schema, this.queue);
	}

	@Test
	void startsWhileTheBrokerIsDownAndConsumesOnceItIsBack() {
		this.proxy.cut();
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox.rabbit")) {
			long started = System.nanoTime();
			service().run((context) -> {
				Duration startUp = Duration.ofNanos(System.nanoTime() - started);
				assertThat(context).hasNotFailed();
				// it fails over at the first refused connection; before, start-up failed after ~24 s
				assertThat(startUp).isLessThan(Duration.ofSeconds(15));
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				assertThat(endpoint.isRunning()).isTrue();
				assertThat(endpoint.isConsuming()).isFalse();
				assertThat(logs.atLeast(Level.WARN)).anySatisfy((event) -> assertThat(event.getFormattedMessage())
					.contains("unreachable").contains(this.queue).contains("will start when it is"));
				assertThat(queueExists(this.queue)).isFalse();

				this.proxy.restore();
				await().until(endpoint::isConsuming);
				UUID ping = publish("ok");
				await().until(() -> this.pings.handled(ping) == 1);
				assertThat(queueExists(this.queue + "_error")).isTrue();
			});
		}
	}

	@Test
	void failsToStartWhenTheBrokerIsReachableButRefusesTheTopology() throws Exception {
		// the same name, declared otherwise: not durable, where the consumer's queue is durable
		this.topology.channel().queueDeclare(this.queue, false, false, false, null);
		service().run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("PRECONDITION_FAILED")
				.hasMessageContaining(this.queue);
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("could not start consuming [" + this.queue + "]")
				.contains("PRECONDITION_FAILED");
			assertThat(analysis.getAction()).contains("exists with other arguments");
		});
	}

	@Test
	void declaresItsTopologyAgainOnReconnectingToABrokerThatLostIt() throws Exception {
		service().run((context) -> {
			TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
			await().until(endpoint::isConsuming);
			UUID before = publish("ok");
			await().until(() -> this.pings.handled(before) == 1);

			this.proxy.cut();
			await().until(() -> !endpoint.isConsuming());
			// what a fresh node or a reset broker is missing
			Channel admin = this.topology.channel();
			admin.queueUnbind(this.queue, TYPE, "");
			admin.queueDelete(this.queue);
			admin.queueDelete(this.queue + "_error");
			admin.exchangeDelete(TYPE);
			this.proxy.restore();

			await().until(() -> endpoint.isConsuming() && queueExists(this.queue) && queueExists(this.queue + "_error"));
			UUID after = publish("ok");
			await().until(() -> this.pings.handled(after) == 1);
		});
	}

	@Test
	void declaresOnlyTheQueueWhoseConsumerTheBrokerCancelledAgainLeavingTheOtherQueuesDeliveriesAlone()
			throws Exception {
		Pings others = new Pings();
		List<ReceiveEndpoint> endpoints = List.of(endpoint(),
				ReceiveEndpoint.on(this.otherQueue).withConcurrency(2).withPrefetch(4).handle(Ping.class, others));
		ConsumerService.runner(this.schema, endpoints, this.proxy)
			.withPropertyValues("waybill.rabbit.recovery-interval=500ms")
			.run((context) -> {
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				others.gate = new CountDownLatch(1);
				UUID held = publish("slow"); // to both queues: the other queue's handler holds it
				await().until(() -> this.pings.handled(held) == 1 && others.entered.containsKey(held));
				int connections = this.proxy.connectionsForwarded();

				this.topology.channel().queueDelete(this.queue); // the broker cancels its consumers

				await().until(() -> endpoint.isConsuming() && queueExists(this.queue));
				// Before, the whole connection was renewed: the other queue's held delivery came back.
				assertThat(this.proxy.connectionsForwarded()).as("connections opened").isEqualTo(connections);
				others.gate.countDown();
				await().until(() -> others.handled(held) == 1 && queueMessages(this.otherQueue) == 0);
				UUID heldMessage = others.messageIds.get(held);
				assertThat(receiveCount(heldMessage, this.otherQueue))
					.as("deliveries of the held message %s; the other queue's inbox rows: %s", heldMessage,
							inboxRows(this.otherQueue))
					.isOne();
				UUID after = publish("ok");
				await().until(() -> this.pings.handled(after) == 1 && others.handled(after) == 1);
			});
	}

	@Test
	void aChannelTheBrokerClosesAloneIsReplacedOnTheSameConnection() throws Exception {
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox.rabbit")) {
			service().run((context) -> {
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				UUID before = publish("ok");
				await().until(() -> this.pings.handled(before) == 1);
				int connections = this.proxy.connectionsForwarded();
				Channel consuming = endpoint.consumingChannel(this.queue);

				// an acknowledgement of a delivery tag the channel never had: the broker closes that channel
				// (PRECONDITION_FAILED), as it does one whose delivery outlived its consumer_timeout
				consuming.basicAck(1_000_000, false);

				await().until(() -> !consuming.isOpen());
				await().until(() -> endpoint.isConsuming(this.queue)
						&& endpoint.consumingChannel(this.queue) != consuming);
				assertThat(this.proxy.connectionsForwarded()).as("connections opened").isEqualTo(connections);
				assertThat(logs.atLeast(Level.WARN)).anySatisfy((event) -> assertThat(event.getFormattedMessage())
					.contains("the broker closed a channel consuming " + this.queue)
					.contains("PRECONDITION_FAILED"));
				UUID after = publish("ok");
				await().until(() -> this.pings.handled(after) == 1);
			});
		}
	}

	@Test
	void anExchangeAnOperatorDeletedComesBackWithTheConsumersBindingsOnTheLiveConnection() throws Exception {
		ConsumerService.runner(this.schema, endpoint(), this.proxy)
			.withPropertyValues("waybill.rabbit.recovery-interval=500ms", "waybill.rabbit.topology-check-interval=200ms")
			.run((context) -> {
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				int connections = this.proxy.connectionsForwarded();

				this.topology.channel().exchangeDelete(TYPE); // and the queue's binding with it

				// Before, the binding came back only with a new connection: every ping was unroutable.
				List<UUID> probes = new CopyOnWriteArrayList<>();
				await().pollInterval(Duration.ofMillis(300)).until(() -> {
					if (this.topology.exchangeExists(TYPE)) {
						probes.add(publish("ok"));
					}
					return probes.stream().anyMatch((ping) -> this.pings.handled(ping) == 1);
				});
				assertThat(this.proxy.connectionsForwarded()).as("connections opened").isEqualTo(connections);
				assertThat(endpoint.isConsuming()).isTrue();
			});
	}

	@Test
	void theDeliveriesHeldWhenTheirQueueIsDeletedAreStillHandled() throws Exception {
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox.rabbit")) {
			service().run((context) -> {
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				List<UUID> sent = publishHeldAtTheGate(4);
				// one in each channel's handler, the others held by its lane (prefetch 4)
				await().until(() -> this.pings.entered.size() == 2 && queueMessages(this.queue) == 0);

				this.topology.channel().queueDelete(this.queue); // its messages go with it, but for those held
				await().until(() -> logs.atLeast(Level.WARN).stream()
					.anyMatch((event) -> event.getFormattedMessage().contains("stopped consuming " + this.queue)));
				this.pings.gate.countDown();

				// Before, the held deliveries were dropped with the aborted channel: lost with the queue.
				await().until(() -> sent.stream().allMatch((ping) -> this.pings.handled(ping) == 1));
				await().until(() -> endpoint.isConsuming() && queueExists(this.queue));
				UUID after = publish("ok");
				await().until(() -> this.pings.handled(after) == 1);
			});
		}
	}

	@Test
	void aQueueThatCannotBeDeclaredAgainIsNotConsumingAloneRetriedAndReportedSo() throws Exception {
		String extra = this.topology.uniqueName("extra");
		this.topology.deleteLater(extra);
		this.topology.channel().exchangeDeclare(extra, "fanout", false);
		Pings others = new Pings();
		List<ReceiveEndpoint> endpoints = List.of(
				endpoint().withBindings(List.of(new EndpointBinding(extra, ""))),
				ReceiveEndpoint.on(this.otherQueue).handle(Ping.class, others));
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox.rabbit")) {
			ConsumerService.runner(this.schema, endpoints, this.proxy)
				.withPropertyValues("waybill.rabbit.recovery-interval=500ms")
				.run((context) -> {
					TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
					await().until(endpoint::isConsuming);
					// its extra binding's exchange gone, the queue cannot be declared again with its bindings
					this.topology.channel().exchangeDelete(extra);
					this.topology.channel().queueDelete(this.queue);

					await().until(() -> logs.atLeast(Level.ERROR).stream()
						.anyMatch((event) -> event.getFormattedMessage().contains("could not resume consuming " + this.queue)
								&& event.getFormattedMessage().contains(extra)));
					assertThat(endpoint.isConsuming()).isFalse();
					assertThat(endpoint.isConsuming(this.queue)).isFalse();
					assertThat(endpoint.isConsuming(this.otherQueue)).isTrue();
					assertThat(endpoint.notConsumingReason(this.queue)).contains("NOT_FOUND").contains(extra);
					Health reported = endpoint.health();
					assertThat(reported.getStatus()).isEqualTo(Status.DOWN);
					assertThat(reported.getDetails().get("queues")).isEqualTo(
							Map.of(this.queue, "not consuming", this.otherQueue, "consuming"));
					assertThat((String) reported.getDetails().get("reason")).startsWith(this.queue + ": ")
						.contains(extra);
					UUID during = publish("ok");
					await().until(() -> others.handled(during) == 1);

					this.topology.channel().exchangeDeclare(extra, "fanout", false);
					await().until(endpoint::isConsuming);
					assertThat(endpoint.health().getStatus()).isEqualTo(Status.UP);
					UUID after = publish("ok");
					await().until(() -> this.pings.handled(after) == 1 && others.handled(after) == 1);
				});
		}
	}

	@Test
	void aConnectionCutWhileDeliveriesAreUnacknowledgedLogsNoErrorAndProcessesEachMessageOnce() {
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "com.rabbitmq.client", "dev.waybill.outbox.rabbit",
				"dev.waybill.inbox")) {
			service().run((context) -> {
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				List<UUID> sent = publishHeldAtTheGate(6);
				// two in the handlers (concurrency 2), the others sent ahead (prefetch 4), none acknowledged
				await().until(() -> this.pings.entered.size() == 2);
				List<UUID> inHandlers = List.copyOf(this.pings.entered.keySet());

				this.proxy.cut();
				await().until(() -> !endpoint.isConsuming());
				this.pings.gate.countDown(); // the handlers commit, their acknowledgements cannot be sent
				this.proxy.restore();

				await().until(() -> processed() == sent.size());
				for (UUID ping : inHandlers) {
					await().until(() -> receiveCount(ping) >= 2); // delivered again, recognised as a duplicate
				}
				await().until(() -> queueMessages(this.queue) == 0);
				for (UUID ping : sent) {
					assertThat(this.pings.handled(ping)).as("handler runs that committed for %s", ping).isOne();
				}
			});
			List<ILoggingEvent> errors = logs.atLeast(Level.ERROR);
			assertThat(errors).as("errors logged:\n%s", CapturedLogs.describe(errors)).isEmpty();
			assertThat(logs.atLeast(Level.WARN)).as("the loss is reported")
				.anySatisfy((event) -> assertThat(event.getFormattedMessage()).contains("stopped consuming"));
			List<ILoggingEvent> traced = logs.atLeast(Level.WARN).stream()
				.filter((event) -> event.getThrowableProxy() != null)
				.toList();
			assertThat(traced).as("warnings with a stack trace:\n%s", CapturedLogs.describe(traced)).isEmpty();
		}
	}

	private ApplicationContextRunner service() {
		return ConsumerService.runner(this.schema, endpoint(), this.proxy)
			.withPropertyValues("waybill.rabbit.recovery-interval=500ms");
	}

	private ReceiveEndpoint endpoint() {
		return ReceiveEndpoint.on(this.queue).withConcurrency(2).withPrefetch(4).handle(Ping.class, this.pings);
	}

	/** The receive count of a message's inbox row for a consumer. */
	private int receiveCount(UUID messageId, String consumer) {
		return jdbc().queryForObject("SELECT receive_count FROM " + this.schema.name()
				+ ".inbox_state WHERE message_id = ? AND consumer_id = ?", Integer.class, messageId, consumer);
	}

	private List<Map<String, Object>> inboxRows(String consumer) {
		return jdbc().queryForList("SELECT * FROM " + this.schema.name() + ".inbox_state WHERE consumer_id = ?",
				consumer);
	}

	/** Publishes pings whose handlers wait at the gate, closed until the test opens it. */
	private List<UUID> publishHeldAtTheGate(int count) throws IOException {
		this.pings.gate = new CountDownLatch(1);
		List<UUID> sent = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			sent.add(publish("slow"));
		}
		return sent;
	}

	private UUID publish(String mode) throws IOException {
		return ConsumerService.publishPing(this.topology, TYPE, mode);
	}

	private boolean queueExists(String name) {
		return queueMessages(name) >= 0;
	}

	/** The ready messages of a queue, -1 when it does not exist. */
	private int queueMessages(String name) {
		return ConsumerService.readyMessages(this.topology, name);
	}

	private int processed() {
		return ConsumerService.processed(this.schema, this.queue);
	}

	private int receiveCount(UUID ping) {
		UUID messageId = this.pings.messageIds.get(ping);
		List<Integer> counts = jdbc().queryForList("SELECT receive_count FROM " + this.schema.name()
				+ ".inbox_state WHERE message_id = ?", Integer.class, messageId);
		return counts.isEmpty() ? 0 : counts.get(0);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(TYPE)
	record Ping(UUID id, String mode) {
	}

	/**
	 * Counts the committed runs per ping; "slow" pings wait for the gate inside the transaction.
	 */
	static final class Pings implements MessageHandler<Ping> {

		final Map<UUID, Boolean> entered = new ConcurrentHashMap<>();

		final Map<UUID, UUID> messageIds = new ConcurrentHashMap<>();

		private final Map<UUID, AtomicInteger> committed = new ConcurrentHashMap<>();

		volatile CountDownLatch gate = new CountDownLatch(0);

		@Override
		public void handle(Ping ping, MessageContext context) throws Exception {
			this.entered.put(ping.id(), Boolean.TRUE);
			this.messageIds.put(ping.id(), context.messageId());
			if ("slow".equals(ping.mode())) {
				this.gate.await();
			}
			AtomicInteger count = this.committed.computeIfAbsent(ping.id(), (id) -> new AtomicInteger());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					count.incrementAndGet();
				}

			});
		}

		int handled(UUID ping) {
			AtomicInteger count = this.committed.get(ping);
			return (count != null) ? count.get() : 0;
		}

	}

}
