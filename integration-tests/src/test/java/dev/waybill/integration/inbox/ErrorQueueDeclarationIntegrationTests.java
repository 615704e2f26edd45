package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.ConsumerService;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.test.TestSchema;

/**
 * An error queue is declared with its consumer queue's type, not its limits: a console probe found
 * a quorum error queue with the consumer queue's {@code x-delivery-limit} emptied by looking at it
 * (each peek returns the messages, a delivery each), and a TTL or length limit would drop faults
 * the same way. An error queue an earlier version declared with every argument is used as it is.
 */
class ErrorQueueDeclarationIntegrationTests {

	private static final String TYPE = "waybill-test.error-queue-declaration.ping";

	private static final Map<String, Object> LIMITED_QUORUM = Map.of("x-queue-type", "quorum", "x-delivery-limit", 2,
			"x-message-ttl", 1500, "x-max-length", 1);

	private TestSchema schema;

	private TestTopology topology;

	private String queue;

	@BeforeEach
	void setUp() {
		this.topology = TestRabbit.get().topology("error-queue-declaration");
		this.topology.deleteLater(TYPE);
		this.queue = this.topology.uniqueName("pings");
		this.schema = TestSchema.create("errorqueuedecl");
	}

	@AfterEach
	void tearDown() {
		ConsumerService.tearDown(this.topology, this.schema, this.queue);
	}

	@Test
	void anErrorQueueTakesItsQueuesTypeButNoneOfItsLimitsSoPeekingLosesNothing() throws Exception {
		service(LIMITED_QUORUM).run((context) -> {
			assertThat(context).hasNotFailed();
			await().until(TestReceiveEndpoint.of(context)::isConsuming);
			for (int i = 1; i <= 3; i++) {
				publishUnreadable();
				int faulted = i;
				await().until(() -> depth(this.queue + "_error") == faulted);
			}
			for (int peek = 0; peek < 4; peek++) {
				List<GetResponse> held = new ArrayList<>();
				GetResponse response;
				while ((response = this.topology.channel().basicGet(this.queue + "_error", false)) != null) {
					held.add(response);
				}
				assertThat(held).as("peek %d", peek).hasSize(3);
				for (GetResponse message : held) {
					this.topology.channel().basicNack(message.getEnvelope().getDeliveryTag(), false, true);
				}
			}
			GetResponse again = await().until(() -> this.topology.channel().basicGet(this.queue + "_error", false),
					(response) -> response != null);
			assertThat(again.getProps().getHeaders()).as("a quorum queue counts deliveries")
				.containsKey("x-delivery-count");
			this.topology.channel().basicNack(again.getEnvelope().getDeliveryTag(), false, true);
			// through and past the consumer queue's message TTL (1.5 s)
			Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
				.until(() -> depth(this.queue + "_error") == 3);
		});
	}

	@Test
	void anErrorQueueThatExistsWithTheConsumerQueuesArgumentsIsUsedAsItIsWithAWarning() throws Exception {
		Map<String, Object> arguments = Map.of("x-queue-type", "quorum", "x-max-length", 100);
		this.topology.channel().queueDeclare(this.queue + "_error", true, false, false, arguments);
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox.rabbit")) {
			service(arguments).run((context) -> {
				assertThat(context).hasNotFailed();
				await().until(TestReceiveEndpoint.of(context)::isConsuming);
				publishUnreadable();
				await().until(() -> depth(this.queue + "_error") == 1);
			});
			assertThat(logs.atLeast(Level.WARN)).singleElement()
				.satisfies((event) -> assertThat(event.getFormattedMessage())
					.contains("error queue '" + this.queue + "_error' exists with other arguments")
					.contains("{x-queue-type=quorum}")
					.contains("delete it, and Waybill declares it anew"));
		}
	}

	private ApplicationContextRunner service(Map<String, Object> queueArguments) {
		ReceiveEndpoint endpoint = ReceiveEndpoint.on(this.queue)
			.withQueueArguments(queueArguments)
			.handle(Ping.class, (ping, context) -> {
			});
		return ConsumerService.runner(this.schema, endpoint);
	}

	/** A message whose body is not JSON: poison, faulted to the error queue at once. */
	private void publishUnreadable() throws IOException {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
			.type(TYPE)
			.contentType("application/json")
			.deliveryMode(2)
			.build();
		this.topology.channel().basicPublish(TYPE, "", properties, "not json".getBytes(StandardCharsets.UTF_8));
	}

	private int depth(String name) {
		try {
			return this.topology.channel().queueDeclarePassive(name).getMessageCount();
		}
		catch (IOException ex) {
			return -1;
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(TYPE)
	record Ping(UUID id) {
	}

}
