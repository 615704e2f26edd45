package dev.waybill.integration.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.integration.endpoints.Shop.Charge;
import dev.waybill.integration.endpoints.Shop.OrderCancelled;
import dev.waybill.integration.endpoints.Shop.OrderPlaced;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Receive endpoints on a real broker: several message types on one queue, a supertype handler,
 * a declared topic exchange consumed by pattern, per-endpoint retry and exception filters, and a
 * send to an exchange that does not exist.
 */
class ReceiveEndpointIntegrationTests {

	private static final List<String> QUEUES = List.of(Shop.ORDERS_QUEUE, Shop.EVENTS_QUEUE, Shop.REGION_QUEUE,
			Shop.PAYMENTS_QUEUE);

	private static final List<String> EXCHANGES = List.of(Shop.PLACED, Shop.SHIPPED, Shop.ORDER_EVENT, Shop.CANCELLED,
			Shop.CHARGE, Shop.REGIONS);

	private final String suffix = UUID.randomUUID().toString().substring(0, 8);

	private TestSchema schema;

	private Connection rabbit;

	private Channel channel;

	private final List<String> extraExchanges = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		Shop.seen.clear();
		this.schema = TestSchema.create("endpoints");
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		deleteTopology();
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		for (String exchange : this.extraExchanges) {
			this.channel.exchangeDelete(exchange);
		}
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void aPrefetchBelowTheBatchMaxSizeIsLoggedAtStartUp() {
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, TestReceiveEndpoint.LOGGER_NAME)) {
			service(Shop.PlacedHandler.class).withPropertyValues("waybill.inbox.batch.max-size=64")
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(logs.events()).extracting(ILoggingEvent::getFormattedMessage)
				.anySatisfy((message) -> assertThat(message).contains("at most 32 deliveries of queue '" + Shop.ORDERS_QUEUE)
					.contains("max-size of 64"));
		}
	}

	@Test
	void twoTypesOnOneQueueGoToTheirTwoHandlersInQueueOrder() {
		service(Shop.PlacedHandler.class, Shop.ShippedHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			List<String> expected = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				UUID order = UUID.randomUUID();
				publishRaw(Shop.PLACED, json("{\"id\":\"" + order + "\"}"));
				publishRaw(Shop.SHIPPED, json("{\"id\":\"" + order + "\"}"));
				expected.add("placed " + order);
				expected.add("shipped " + order);
			}
			await().until(() -> Shop.seen.size() == 10);
			assertThat(Shop.seen).containsExactlyElementsOf(expected);
			await().until(() -> count("SELECT count(*) FROM " + this.schema.name()
					+ ".inbox_state WHERE processed_at IS NOT NULL AND consumer_id = '" + Shop.ORDERS_QUEUE + "'") == 10);

			// A type no handler of the queue takes is poison, as before.
			String stray = UUID.randomUUID().toString();
			AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(stray)
				.type("waybill-test.endpoints.unknown").contentType("application/json").build();
			this.channel.basicPublish("", Shop.ORDERS_QUEUE, properties, json("{}"));
			GetResponse fault = awaitMessage(Shop.ORDERS_QUEUE + "_error");
			assertThat(fault.getProps().getMessageId()).isEqualTo(stray);
			assertThat(fault.getProps().getHeaders().get("waybill-fault-reason").toString())
				.contains("waybill-test.endpoints.unknown");
		});
	}

	@Test
	void aHandlerOfAnInterfaceReceivesThePublishedSubtypeThroughTheSupertypesExchange() {
		service(Shop.OrderEventHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			UUID order = UUID.randomUUID();
			publish(context, new OrderCancelled(order, "customer"));
			await().until(() -> Shop.seen.size() == 1);
			assertThat(Shop.seen).containsExactly("OrderCancelled " + order + " as " + Shop.CANCELLED);
			// The publisher bound the subtype's exchange to the supertype's, exchange to exchange.
			this.channel.exchangeDeclarePassive(Shop.ORDER_EVENT);
			this.channel.exchangeDeclarePassive(Shop.CANCELLED);
		});
	}

	@Test
	void aDeclaredTopicExchangeDeliversByRoutingKeyPatternToAnExtraBinding() {
		service(Shop.RegionHandler.class)
			.withPropertyValues("waybill.rabbit.topology.exchanges[0].name=" + Shop.REGIONS,
					"waybill.rabbit.topology.exchanges[0].type=topic")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				UUID eu = UUID.randomUUID();
				UUID us = UUID.randomUUID();
				UUID deep = UUID.randomUUID();
				send(context, Shop.REGIONS, new OrderPlaced(us), "orders.us.nyc");
				send(context, Shop.REGIONS, new OrderPlaced(deep), "orders.eu.paris.north");
				send(context, Shop.REGIONS, new OrderPlaced(eu), "orders.eu.paris");
				await().until(() -> Shop.seen.contains("region " + eu));
				// The others reach no queue: the broker returns them as unroutable.
				await().until(() -> count("SELECT count(*) FROM " + this.schema.name()
						+ ".outbox_state WHERE last_error LIKE '%unroutable%'") == 2);
				assertThat(Shop.seen).as("orders.eu.* matches one word only").containsExactly("region " + eu);
			});
	}

	@Test
	void anEndpointsOwnRetryPolicyAndExceptionFiltersApply() {
		service(Shop.ChargeHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			UUID declined = UUID.randomUUID();
			UUID paid = UUID.randomUUID();
			UUID failing = UUID.randomUUID();
			publish(context, new Charge(declined, "declined"));
			GetResponse declinedFault = awaitMessage(Shop.PAYMENTS_QUEUE + "_error");
			assertThat(declinedFault.getProps().getHeaders().get("waybill-fault-attempts")).hasToString("1");
			assertThat(Shop.seen).as("never retried").containsExactly("charge " + declined + " declined");

			publish(context, new Charge(paid, "paid"));
			await().until(() -> count("SELECT count(*) FROM " + this.schema.name() + ".inbox_state WHERE processed_at "
					+ "IS NOT NULL AND last_error LIKE 'ignored: %AlreadyPaid%'") == 1);
			assertThat(Shop.seen).filteredOn((seen) -> seen.contains(paid.toString())).hasSize(1);

			publish(context, new Charge(failing, "fail"));
			GetResponse failed = awaitMessage(Shop.PAYMENTS_QUEUE + "_error");
			assertThat(failed.getProps().getHeaders().get("waybill-fault-attempts"))
				.as("the endpoint's max-attempts 2, not the global 3")
				.hasToString("2");
			assertThat(Shop.seen).filteredOn((seen) -> seen.contains(failing.toString())).hasSize(2);
			assertThat(this.channel.basicGet(Shop.PAYMENTS_QUEUE + "_error", true)).as("the ignored one is not there")
				.isNull();
		});
	}

	@Test
	void aSendToAMissingExchangeIsLoggedAtWarnNamingItAndRecordedOnItsScope() {
		String missing = "waybill-test.endpoints.missing-" + this.suffix;
		try (CapturedLogs logs = CapturedLogs.capture(Level.WARN, "dev.waybill.outbox.internal.relay.Settler")) {
			service().run((context) -> {
				assertThat(context).hasNotFailed();
				send(context, missing, new OrderPlaced(UUID.randomUUID()), "");
				await().until(() -> logs.events().stream()
					.anyMatch((event) -> event.getFormattedMessage().contains("'" + missing + "' does not exist")));
				ILoggingEvent warning = logs.events().stream()
					.filter((event) -> event.getFormattedMessage().contains(missing))
					.findFirst()
					.orElseThrow();
				assertThat(warning.getLevel()).isEqualTo(Level.WARN);
				assertThat(warning.getFormattedMessage()).contains("failed its first delivery attempt");
				// The scope keeps the reason, which the relay's failed-attempt meter and the backlog count.
				await().until(() -> count("SELECT count(*) FROM " + this.schema.name() + ".outbox_state WHERE "
						+ "status <> 'published' AND last_error LIKE '%''" + missing + "'' does not exist%'") == 1);
			});
		}
	}

	@Test
	void aSendToAMissingExchangeDeclaresItWhenAsked() {
		String target = "waybill-test.endpoints.declared-on-send-" + this.suffix;
		this.extraExchanges.add(target);
		service().withPropertyValues("waybill.rabbit.declare-send-destinations=true").run((context) -> {
			assertThat(context).hasNotFailed();
			send(context, target, new OrderPlaced(UUID.randomUUID()), "");
			// The exchange exists now; nothing is bound to it, so the broker returns the message.
			await().until(() -> count("SELECT count(*) FROM " + this.schema.name()
					+ ".outbox_state WHERE last_error LIKE '%unroutable%'") == 1);
			this.channel.exchangeDeclarePassive(target);
		});
	}

	@Test
	void theDeclaredTopologyIsDeclaredAgainWhenTheConsumerReconnects() throws Exception {
		service(Shop.RegionHandler.class)
			.withPropertyValues("waybill.rabbit.topology.exchanges[0].name=" + Shop.REGIONS,
					"waybill.rabbit.topology.exchanges[0].type=topic")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(context);
				await().until(endpoint::isConsuming);
				this.channel.exchangeDelete(Shop.REGIONS);
				this.channel.queueDelete(Shop.REGION_QUEUE); // the broker cancels the consumer: it declares both again
				await().until(() -> exists(Shop.REGIONS, true) && exists(Shop.REGION_QUEUE, false)
						&& endpoint.isConsuming());
				UUID eu = UUID.randomUUID();
				send(context, Shop.REGIONS, new OrderPlaced(eu), "orders.eu.rome");
				await().until(() -> Shop.seen.contains("region " + eu));
			});
	}

	@Test
	void badTopologyPropertiesFailStartupNamingTheProperty() {
		service().withPropertyValues("waybill.rabbit.topology.exchanges[0].name=x", "waybill.rabbit.topology.exchanges[0].type=fan")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.rabbit.topology.exchanges[0].type"));
		service().withPropertyValues("waybill.rabbit.topology.bindings[0].exchange=x")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.rabbit.topology.bindings[0].queue")
				.hasMessageContaining("destination-exchange"));
	}

	@Test
	void aDeclaredExchangeThatExistsWithAnotherTypeFailsStartup() throws Exception {
		String exchange = "waybill-test.endpoints.conflict-" + this.suffix;
		this.extraExchanges.add(exchange);
		this.channel.exchangeDeclare(exchange, "fanout", true);
		service().withPropertyValues("waybill.rabbit.topology.exchanges[0].name=" + exchange,
				"waybill.rabbit.topology.exchanges[0].type=topic")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining("RabbitMQ refused Waybill's declared topology")
					.hasStackTraceContaining("PRECONDITION_FAILED")
					.hasStackTraceContaining(exchange);
			});
	}

	@Test
	void anExtraBindingToAnExchangeNobodyDeclaredFailsStartup() {
		String nowhere = "waybill-test.endpoints.nowhere-" + this.suffix;
		service(Shop.ChargeHandler.class)
			.withPropertyValues("waybill.inbox.endpoints[" + Shop.PAYMENTS_QUEUE + "].bindings[0].exchange=" + nowhere)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining("NOT_FOUND")
					.hasStackTraceContaining(nowhere);
			});
	}

	private boolean exists(String name, boolean exchange) throws Exception {
		Channel probe = this.rabbit.createChannel();
		try {
			if (exchange) {
				probe.exchangeDeclarePassive(name);
			}
			else {
				probe.queueDeclarePassive(name);
			}
			return true;
		}
		catch (java.io.IOException ex) {
			return false;
		}
		finally {
			if (probe.isOpen()) {
				probe.close();
			}
		}
	}

	private ApplicationContextRunner service(Class<?>... handlers) {
		TestRabbit rabbit = TestRabbit.get();
		ApplicationContextRunner runner = WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "waybill.inbox.retry.interval=200ms",
					"waybill.inbox.retry.max-attempts=3", "waybill.inbox.retry.jitter=0",
					"spring.datasource.hikari.maximum-pool-size=4");
		for (Class<?> handler : handlers) {
			runner = runner.withBean(handler);
		}
		return runner;
	}

	private static void publish(AssertableApplicationContext context, Object message) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).publish(message));
	}

	private static void send(AssertableApplicationContext context, String destination, Object message,
			String routingKey) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class)
				.send(destination, message, (options) -> options.routingKey(routingKey)));
	}

	private void publishRaw(String type, byte[] body) throws Exception {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
			.type(type).contentType("application/json").deliveryMode(2).headers(Map.of()).build();
		this.channel.basicPublish(type, "", properties, body);
	}

	private GetResponse awaitMessage(String queue) {
		return await().until(() -> this.channel.basicGet(queue, true), (response) -> response != null);
	}

	private static byte[] json(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private int count(String sql) {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject(sql, Integer.class);
	}

	private void deleteTopology() throws Exception {
		for (String queue : QUEUES) {
			this.channel.queueDelete(queue);
			this.channel.queueDelete(queue + "_error");
		}
		for (String exchange : EXCHANGES) {
			this.channel.exchangeDelete(exchange);
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

}
