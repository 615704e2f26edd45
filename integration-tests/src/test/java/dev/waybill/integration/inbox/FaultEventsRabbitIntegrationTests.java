package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Fault events over PostgreSQL and RabbitMQ: a payments service gives a charge up, and a watcher
 * service consumes its {@code Fault<Charge>} with an ordinary handler.
 */
class FaultEventsRabbitIntegrationTests {

	static final String CHARGE_TYPE = "waybill-test.faults.charge";

	static final String PAYMENTS_QUEUE = "waybill-test.faults.payments";

	static final String WATCHER_QUEUE = "waybill-test.faults.watcher";

	static final String FAULT_EXCHANGE = "fault:" + CHARGE_TYPE;

	static final BlockingQueue<Fault<Charge>> faults = new LinkedBlockingQueue<>();

	private TestSchema payments;

	private TestSchema watcher;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		faults.clear();
		this.payments = TestSchema.create("fpay");
		this.watcher = TestSchema.create("fwatch");
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		deleteTopology();
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.payments.close();
		this.watcher.close();
	}

	@Test
	void aMessageGivenUpIsPublishedAsAFaultThatAnotherServiceHandles() throws Exception {
		service(this.watcher).withUserConfiguration(WatcherService.class).run((watcherContext) -> {
			assertThat(watcherContext).hasNotFailed();
			service(this.payments).withUserConfiguration(PaymentsService.class)
				.withPropertyValues("waybill.inbox.faults.publish=true")
				.run((paymentsContext) -> {
					assertThat(paymentsContext).hasNotFailed();
					UUID chargeId = UUID.randomUUID();
					String messageId = UUID.randomUUID().toString();
					publishCharge(messageId, "corr-7", chargeId);

					Fault<Charge> fault = await().until(faults::poll, (f) -> f != null);
					assertThat(fault.message()).as("the payload is typed").isEqualTo(new Charge(chargeId, 42));
					assertThat(fault.messageId()).hasToString(messageId);
					assertThat(fault.messageType()).isEqualTo(CHARGE_TYPE);
					assertThat(fault.correlationId()).isEqualTo("corr-7");
					assertThat(fault.consumer()).isEqualTo(PAYMENTS_QUEUE);
					assertThat(fault.attempts()).isEqualTo(2);
					assertThat(fault.exceptionType()).isEqualTo(IllegalStateException.class.getName());
					assertThat(fault.exceptionMessage()).isEqualTo("card declined: " + chargeId);
					assertThat(fault.stackTrace()).contains("DecliningHandler.handle");
					assertThat(fault.host()).isNotBlank();
					assertThat(fault.faultedAt()).isNotNull();

					GetResponse error = await().until(() -> this.channel.basicGet(PAYMENTS_QUEUE + "_error", true),
							(r) -> r != null);
					assertThat(error.getProps().getMessageId()).as("the error queue still gets the message").isEqualTo(messageId);

					// Written through the consumer outbox: tied to the inbound message, in the
					// transaction that marked its inbox row faulted.
					Map<String, Object> scope = jdbc(this.payments).queryForMap("SELECT s.inbound_message_id::text AS inbound, "
							+ "s.consumer_id, m.destination, m.correlation_id FROM " + this.payments.name()
							+ ".outbox_state s JOIN " + this.payments.name() + ".outbox_message m ON m.outbox_id = s.id "
							+ "WHERE m.message_type = ?", FAULT_EXCHANGE);
					assertThat(scope).containsEntry("inbound", messageId)
						.containsEntry("consumer_id", PAYMENTS_QUEUE)
						.containsEntry("destination", FAULT_EXCHANGE)
						.containsEntry("correlation_id", "corr-7");
					assertThat(jdbc(this.watcher).queryForObject("SELECT count(*) FROM " + this.watcher.name()
							+ ".inbox_state WHERE consumer_id = ? AND processed_at IS NOT NULL", Integer.class,
							WATCHER_QUEUE)).isOne();
				});
		});
	}

	@Test
	void withoutThePropertyNoFaultEventIsPublished() throws Exception {
		service(this.payments).withUserConfiguration(PaymentsService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			String messageId = UUID.randomUUID().toString();
			publishCharge(messageId, null, UUID.randomUUID());
			GetResponse error = await().until(() -> this.channel.basicGet(PAYMENTS_QUEUE + "_error", true),
					(r) -> r != null);
			assertThat(error.getProps().getMessageId()).isEqualTo(messageId);
			await().until(() -> jdbc(this.payments).queryForObject("SELECT count(*) FROM " + this.payments.name()
					+ ".inbox_state WHERE faulted_at IS NOT NULL", Integer.class) == 1);
			assertThat(jdbc(this.payments).queryForObject("SELECT count(*) FROM " + this.payments.name()
					+ ".outbox_message WHERE message_type LIKE 'fault:%'", Integer.class)).isZero();
		});
	}

	@Test
	void aPoisonMessageHasNoFaultEvent() throws Exception {
		service(this.payments).withUserConfiguration(PaymentsService.class)
			.withPropertyValues("waybill.inbox.faults.publish=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String messageId = UUID.randomUUID().toString();
				publishRaw(messageId, null, "{not json".getBytes(StandardCharsets.UTF_8));
				GetResponse error = await().until(() -> this.channel.basicGet(PAYMENTS_QUEUE + "_error", true),
						(r) -> r != null);
				assertThat(error.getProps().getHeaders().get("waybill-fault-reason").toString()).contains("cannot be read");
				assertThat(jdbc(this.payments).queryForObject("SELECT count(*) FROM " + this.payments.name()
						+ ".outbox_message WHERE message_type LIKE 'fault:%'", Integer.class)).isZero();
			});
	}

	private void publishCharge(String messageId, String correlationId, UUID chargeId) throws Exception {
		publishRaw(messageId, correlationId,
				("{\"id\":\"" + chargeId + "\",\"cents\":42}").getBytes(StandardCharsets.UTF_8));
	}

	private void publishRaw(String messageId, String correlationId, byte[] body) throws Exception {
		this.channel.exchangeDeclare(CHARGE_TYPE, "fanout", true);
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
			.correlationId(correlationId)
			.type(CHARGE_TYPE)
			.contentType("application/json")
			.deliveryMode(2)
			.build();
		this.channel.basicPublish(CHARGE_TYPE, "", properties, body);
	}

	private static ApplicationContextRunner service(TestSchema schema) {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"spring.datasource.hikari.maximum-pool-size=4",
					"waybill.outbox.relay.poll-interval=200ms", "waybill.inbox.retry.interval=200ms",
					"waybill.inbox.retry.max-attempts=2", "waybill.inbox.retry.jitter=0");
	}

	private static JdbcTemplate jdbc(TestSchema schema) {
		return new JdbcTemplate(schema.dataSource());
	}

	private void deleteTopology() throws Exception {
		for (String queue : List.of(PAYMENTS_QUEUE, PAYMENTS_QUEUE + "_error", WATCHER_QUEUE, WATCHER_QUEUE + "_error")) {
			this.channel.queueDelete(queue);
		}
		for (String exchange : List.of(CHARGE_TYPE, FAULT_EXCHANGE)) {
			this.channel.exchangeDelete(exchange);
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(CHARGE_TYPE)
	record Charge(UUID id, long cents) {
	}

	@Consumer(queue = PAYMENTS_QUEUE, concurrency = 1)
	static class DecliningHandler implements MessageHandler<Charge> {

		@Override
		public void handle(Charge charge, MessageContext context) {
			throw new IllegalStateException("card declined: " + charge.id());
		}

	}

	@Consumer(queue = WATCHER_QUEUE, concurrency = 1)
	static class ChargeFaultHandler implements MessageHandler<Fault<Charge>> {

		@Override
		public void handle(Fault<Charge> fault, MessageContext context) {
			faults.add(fault);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsService {

		@Bean
		DecliningHandler decliningHandler() {
			return new DecliningHandler();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WatcherService {

		@Bean
		ChargeFaultHandler chargeFaultHandler() {
			return new ChargeFaultHandler();
		}

	}

}
