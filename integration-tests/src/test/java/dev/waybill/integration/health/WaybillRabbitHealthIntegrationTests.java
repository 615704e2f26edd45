package dev.waybill.integration.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.health.WaybillHealthContributorAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.health.WaybillRabbitHealthContributorAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The {@code waybill} health contributor of a service that publishes and consumes, its broker
 * connections running through a {@link TcpProxy}: cutting the broker turns {@code relay} (circuit
 * open) and {@code consumers} DOWN with the reason, restoring it turns both UP again.
 */
class WaybillRabbitHealthIntegrationTests {

	private static final String TYPE = "waybill-test.health.ping";

	private TestSchema schema;

	private TestTopology topology;

	private TcpProxy proxy;

	private String queue;

	@BeforeEach
	void setUp() {
		this.proxy = TestRabbit.get().proxy();
		this.topology = TestRabbit.get().topology("health");
		this.topology.deleteLater(TYPE);
		this.queue = this.topology.uniqueName("pings");
		this.schema = TestSchema.create("rabbit_health");
	}

	@AfterEach
	void tearDown() {
		this.proxy.close();
		for (String name : List.of(this.queue, this.queue + "_error")) {
			try {
				this.topology.channel().queueDelete(name);
			}
			catch (IOException | RuntimeException ex) {
				// not declared
			}
		}
		this.topology.close();
		this.schema.close();
	}

	@Test
	void aCutBrokerTurnsRelayAndConsumersDownAndARestoredOneUpAgain() {
		service().run((context) -> {
			assertThat(context).hasNotFailed();
			await().until(() -> status(context, "consumers") == Status.UP && status(context, "relay") == Status.UP);
			Health consumers = component(context, "consumers");
			assertThat(consumers.getDetails()).containsEntry("queues", Map.of(this.queue, "consuming"))
				.doesNotContainKey("reason");
			Health relay = component(context, "relay");
			assertThat(relay.getDetails()).containsEntry("circuit", "CLOSED")
				.containsEntry("running", true)
				.containsEntry("listening", true)
				.containsEntry("threadsAlive", relay.getDetails().get("threads"));

			this.proxy.cut();
			await().until(() -> status(context, "consumers") == Status.DOWN);
			publish(context); // the relay finds the broker unreachable and opens its circuit
			await().until(() -> status(context, "relay") == Status.DOWN);

			Health down = component(context, "consumers");
			assertThat(down.getDetails()).containsEntry("queues", Map.of(this.queue, "not consuming"))
				.containsKey("reason");
			Health open = component(context, "relay");
			assertThat(open.getDetails().get("circuit")).isIn("OPEN");
			assertThat(open.getDetails()).containsKey("brokerFailure");
			// the broker's URI names the user, never the password
			assertThat(String.valueOf(open.getDetails()) + down.getDetails()).as("no password in the details")
				.doesNotContain(":" + TestRabbit.get().password() + "@");

			this.proxy.restore();
			await().until(() -> status(context, "consumers") == Status.UP && status(context, "relay") == Status.UP);
		});
	}

	@Test
	void aCancelledConsumerTurnsConsumersDownWithTheReasonUntilItsQueueIsDeclaredAgain() throws Exception {
		service().run((context) -> {
			assertThat(context).hasNotFailed();
			await().until(() -> status(context, "consumers") == Status.UP);
			// another connection's exclusive queue in the place of its error queue keeps the queue from
			// being declared again, so the health is down for as long as the test needs
			String errorQueue = this.queue + "_error";
			this.topology.channel().queueDelete(errorQueue);
			try (Connection squatter = TestRabbit.get().connect()) {
				Channel exclusive = squatter.createChannel();
				exclusive.queueDeclare(errorQueue, false, true, false, null);

				this.topology.channel().queueDelete(this.queue); // the broker cancels the consumer

				await().until(() -> String.valueOf(component(context, "consumers").getDetails().get("reason"))
					.contains("RESOURCE_LOCKED"));
				Health down = component(context, "consumers");
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("queues", Map.of(this.queue, "not consuming"))
					.containsEntry("running", true);
				assertThat((String) down.getDetails().get("reason"))
					.as("how the consumer was lost, then why it is not back")
					.contains("cancelled the consumer of " + this.queue)
					.contains("consuming it again failed");
			}

			await().until(() -> status(context, "consumers") == Status.UP);
			assertThat(component(context, "consumers").getDetails()).doesNotContainKey("reason");
			this.topology.channel().queueDeclarePassive(this.queue); // declared again
			this.topology.channel().queueDeclarePassive(errorQueue);
		});
	}

	@Test
	void aStoppedEndpointIsDownWithTheReason() {
		service().run((context) -> {
			await().until(() -> status(context, "consumers") == Status.UP);
			TestReceiveEndpoint.of(context).stop();

			Health stopped = component(context, "consumers");
			assertThat(stopped.getStatus()).isEqualTo(Status.DOWN);
			assertThat(stopped.getDetails()).containsEntry("running", false);
		});
	}

	@Test
	void isOffWithoutSpringBootsHealthSupport() {
		service().withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("waybillConsumersHealth")
				.doesNotHaveBean("waybillHealthContributor"));
	}

	private ApplicationContextRunner service() {
		TestRabbit rabbit = TestRabbit.get();
		ConsumerRegistration<Ping> registration = ConsumerRegistration.of(this.queue, Ping.class, (ping, context) -> {
		});
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class,
					WaybillHealthContributorAutoConfiguration.class,
					WaybillRabbitHealthContributorAutoConfiguration.class))
			.withBean(ConsumerRegistry.class, () -> ConsumerRegistry.of(List.of(registration)))
			.withPropertyValues("spring.rabbitmq.host=" + this.proxy.host(), "spring.rabbitmq.port=" + this.proxy.port(),
					"spring.rabbitmq.virtual-host=" + rabbit.virtualHost(), "spring.rabbitmq.username=" + rabbit.username(),
					"spring.rabbitmq.password=" + rabbit.password(), "waybill.rabbit.recovery-interval=500ms",
					"waybill.outbox.relay.poll-interval=200ms", "waybill.outbox.circuit-breaker.failure-threshold=1",
					"waybill.outbox.circuit-breaker.cool-down=1s");
	}

	private static void publish(ApplicationContext context) {
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> publisher.publish(new Ping(UUID.randomUUID())));
	}

	private static @Nullable Status status(ApplicationContext context, String name) {
		Health health = component(context, name);
		return (health != null) ? health.getStatus() : null;
	}

	private static @Nullable Health component(ApplicationContext context, String name) {
		CompositeHealthContributor waybill = context.getBean("waybillHealthContributor",
				CompositeHealthContributor.class);
		HealthIndicator indicator = (HealthIndicator) waybill.getContributor(name);
		return (indicator != null) ? indicator.health() : null;
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(TYPE)
	record Ping(UUID id) {
	}

}
