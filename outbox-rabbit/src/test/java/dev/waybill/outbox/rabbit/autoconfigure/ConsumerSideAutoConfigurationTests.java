package dev.waybill.outbox.rabbit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.Lifecycle;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The consumer side (inbox processor, registry, store, admin, receive endpoint) exists only in an
 * application that has {@link MessageHandler} beans, and the transport starts without the inbox
 * module on the classpath.
 */
class ConsumerSideAutoConfigurationTests {

	private static final String QUEUE = "waybill-test.consumer-side";

	private static final String TYPE = "waybill-test.consumer-side-ping";

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("consumer_side");
	}

	@AfterAll
	static void dropSchema() throws Exception {
		try (Connection connection = TestRabbit.get().connect()) {
			Channel channel = connection.createChannel();
			channel.queueDelete(QUEUE);
			channel.queueDelete(QUEUE + "_error");
			channel.queueDelete(QUEUE + ".partition-0");
			channel.queueDelete(QUEUE + ".partition-1");
			channel.exchangeDelete(QUEUE + ".partitions");
			channel.exchangeDelete(TYPE);
		}
		schema.close();
	}

	@Test
	void aProducerOnlyServiceHasNoConsumerSide() {
		service().run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(OutboxPublisher.class)
			.hasSingleBean(Transport.class)
			.doesNotHaveBean(DeliveryProcessor.class)
			.doesNotHaveBean(ConsumerRegistry.class)
			.doesNotHaveBean("waybillInboxStore")
			.doesNotHaveBean(InboxAdmin.class)
			.doesNotHaveBean(RabbitReceiveEndpoint.class));
	}

	@Test
	void aServiceWithAHandlerHasTheConsumerSide() {
		service().withUserConfiguration(PingHandler.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DeliveryProcessor.class)
				.hasSingleBean(ConsumerRegistry.class)
				.hasBean("waybillInboxStore")
				.hasSingleBean(InboxAdmin.class)
				.hasSingleBean(RabbitReceiveEndpoint.class));
	}

	@Test
	void theReceiveEndpointBeanPausesWhenStoppedAndResumesWhenStarted() {
		service().withUserConfiguration(PingHandler.class).run((context) -> {
			Lifecycle endpoint = context.getBean(WaybillRabbitInboxAutoConfiguration.RECEIVE_ENDPOINT_BEAN_NAME,
					Lifecycle.class);
			assertThat(endpoint).isSameAs(context.getBean(RabbitReceiveEndpoint.class));
			assertThat(endpoint.isRunning()).isTrue();
			endpoint.stop();
			assertThat(endpoint.isRunning()).isFalse();
			endpoint.start();
			assertThat(endpoint.isRunning()).isTrue();
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> context.getBean(RabbitReceiveEndpoint.class).isConsuming());
		});
	}

	@Test
	void anEndpointWithPartitionsFromItsPropertiesConsumesEachPartition() {
		service().withUserConfiguration(PingHandler.class)
			.withPropertyValues("waybill.inbox.endpoints[" + QUEUE + "].partitions=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RabbitReceiveEndpoint endpoint = context.getBean(RabbitReceiveEndpoint.class);
				assertThat(endpoint.queues()).containsExactly(QUEUE);
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(endpoint::isConsuming);
				try (Connection connection = TestRabbit.get().connect()) {
					Channel channel = connection.createChannel();
					// alone, this instance owns both partitions
					assertThat(channel.queueDeclarePassive(QUEUE + ".partition-0").getConsumerCount()).isEqualTo(1);
					assertThat(channel.queueDeclarePassive(QUEUE + ".partition-1").getConsumerCount()).isEqualTo(1);
				}
			});
	}

	@Test
	void theTransportStartsWithoutTheInboxModule() {
		WaybillContext.runner(schema.name())
			.withClassLoader(new FilteredClassLoader("dev.waybill.inbox"))
			.withConfiguration(
					AutoConfigurations.of(WaybillRabbitAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withPropertyValues(rabbitProperties())
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(Transport.class)
				.doesNotHaveBean(RabbitReceiveEndpoint.class));
	}

	private static ApplicationContextRunner service() {
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withPropertyValues(rabbitProperties());
	}

	private static String[] rabbitProperties() {
		TestRabbit rabbit = TestRabbit.get();
		return new String[] { "spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
				"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password() };
	}

	@MessageType(TYPE)
	record Ping(String id) {
	}

	@Consumer(queue = QUEUE)
	static class PingHandler implements MessageHandler<Ping> {

		@Override
		public void handle(Ping message, MessageContext context) {
		}

	}

}
