package dev.waybill.inbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.test.InboxContext;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.test.TestSchema;

/**
 * How the inbox auto-configuration turns {@link MessageHandler} beans into consumers, and the
 * start-up failures that name the bean at fault.
 */
class ConsumerDiscoveryTests {

	private static TestSchema schema;

	private static ApplicationContextRunner runner;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("inbox_discovery");
		runner = InboxContext.runner(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@ParameterizedTest
	@CsvSource({ "ChargeCardHandler, charge-card-handler", "HTTPRequestHandler, http-request-handler",
			"OrderV2Handler, order-v2-handler", "Ship_Parcel, ship-parcel", "Refunds, refunds" })
	void queueNamesDefaultToTheKebabCaseOfTheClassName(String className, String queue) {
		assertThat(ConsumerDiscovery.kebabCase(className)).isEqualTo(queue);
	}

	@Test
	void aLambdaHandlerFailsStartupNamingTheBean() {
		runner.withUserConfiguration(LambdaHandlerConfiguration.class).run((context) -> assertFailure(context,
				"Cannot tell which message type MessageHandler bean 'lambdaHandler'",
				"Implement MessageHandler<YourMessage> in a named class; a lambda or a raw MessageHandler does not "
						+ "carry the type."));
	}

	@Test
	void aHandlerWhoseClassLeavesTheTypeOpenFailsStartupNamingTheBean() {
		runner.withUserConfiguration(OpenHandlerConfiguration.class).run((context) -> assertFailure(context,
				"Cannot tell which message type MessageHandler bean 'openHandler' (" + OpenHandler.class.getName() + ")"));
	}

	@Test
	void aHandlerOfAGenericTypeWithFixedArgumentsFailsStartupSayingWhyAndWhatToDo() {
		runner.withUserConfiguration(EnvelopeHandler.class).run((context) -> assertFailure(context,
				"MessageHandler bean", EnvelopeHandler.class.getName(), "Envelope<" + ChargeCard.class.getName() + ">",
				"one message type on one exchange", "Handle a class that fixes them"));
		runner.withUserConfiguration(EnvelopeFaultHandler.class).run((context) -> assertFailure(context,
				EnvelopeFaultHandler.class.getName(), "a generic type with its type arguments fixed"));
	}

	@Test
	void aHandlerOfAGenericTypeWithAWildcardOrAClassThatFixesItsArgumentsStarts() {
		runner.withUserConfiguration(AnyEnvelopeHandler.class, ChargeCardEnvelopeHandler.class)
			.run((context) -> assertThat(context.getBean(ConsumerRegistry.class).registrations())
				.<Class<?>>extracting(ConsumerRegistration::payloadClass)
				.containsExactlyInAnyOrder(Envelope.class, ChargeCardEnvelope.class));
	}

	@Test
	void twoHandlersOfOneTypeOnOneQueueFailStartupNamingBoth() {
		runner.withUserConfiguration(ChargeCardHandler.class, AnotherChargeCardHandler.class)
			.run((context) -> assertFailure(context, "MessageHandler beans",
					"both handle " + ChargeCard.class.getName() + " on queue 'charge-card-handler'",
					"Set @Consumer(queue = \"...\") on one of them to a queue of its own."));
	}

	@Test
	void handlersOfTwoTypesNamingOneQueueShareOneEndpointAndItsSettings() {
		runner.withUserConfiguration(BillingCardHandler.class, BillingRefundHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ConsumerRegistry registry = context.getBean(ConsumerRegistry.class);
			assertThat(registry.endpoints()).containsOnlyKeys("billing");
			assertThat(registry.endpoints().get("billing")).extracting(ConsumerRegistration::messageType)
				.containsExactlyInAnyOrder("test.charge-card", "test.refund");
			ReceiveEndpoint billing = registry.receiveEndpoint("billing").orElseThrow();
			assertThat(billing.concurrency()).isEqualTo(1);
			assertThat(billing.neverRetry()).containsExactly(IllegalArgumentException.class);
			assertThat(billing.consumers()).allSatisfy((registration) -> {
				assertThat(registration.consumerId()).isEqualTo("billing");
				assertThat(registration.neverRetry()).containsExactly(IllegalArgumentException.class);
			});
		});
	}

	@Test
	void endpointPropertiesApplyPerQueueAndTheAnnotationWins() {
		runner.withUserConfiguration(BillingCardHandler.class, BillingRefundHandler.class, ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.billing.concurrency=7",
					"waybill.inbox.endpoints.billing.prefetch=3",
					"waybill.inbox.endpoints.billing.never-retry=java.lang.IllegalStateException",
					"waybill.inbox.endpoints.billing.ignore=java.lang.UnsupportedOperationException",
					"waybill.inbox.endpoints.billing.retry.max-attempts=9",
					"waybill.inbox.endpoints.billing.bindings[0].exchange=regions",
					"waybill.inbox.endpoints.billing.bindings[0].routing-key=eu.*",
					"waybill.inbox.endpoints.billing.partitions=6",
					"waybill.inbox.endpoints.charge-card-handler.retry.immediate=2",
					"waybill.inbox.retry.interval=3s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ConsumerRegistry registry = context.getBean(ConsumerRegistry.class);
				ReceiveEndpoint billing = registry.receiveEndpoint("billing").orElseThrow();
				assertThat(billing.concurrency()).as("@Consumer wins").isEqualTo(1);
				assertThat(billing.prefetch()).as("the endpoint's property").isEqualTo(3);
				assertThat(billing.neverRetry()).as("@Consumer wins").containsExactly(IllegalArgumentException.class);
				assertThat(billing.ignore()).containsExactly(UnsupportedOperationException.class);
				assertThat(billing.retry().policy().maxAttempts()).isEqualTo(9);
				assertThat(billing.retry().policy().interval()).as("unset: the global value").hasSeconds(3);
				assertThat(billing.bindings()).containsExactly(new EndpointBinding("regions", "eu.*"));
				assertThat(billing.partitions()).isEqualTo(6);
				ReceiveEndpoint other = registry.receiveEndpoint("charge-card-handler").orElseThrow();
				assertThat(other.concurrency()).isEqualTo(4);
				assertThat(other.partitions()).as("unset: one queue").isEqualTo(1);
				assertThat(other.retry().immediate()).isEqualTo(2);
				assertThat(other.retry().policy().maxAttempts()).isEqualTo(5);
				assertThat(other.neverRetry()).isEmpty();
			});
	}

	@Test
	void anEndpointPropertyForAQueueNobodyConsumesFailsStartupNamingIt() {
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.biling.concurrency=2")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("waybill.inbox.endpoints.biling")
					.hasMessageContaining("No MessageHandler consumes queue 'biling'")
					.hasMessageContaining("[charge-card-handler]");
			});
	}

	@Test
	void badEndpointValuesFailStartupNamingTheProperty() {
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.charge-card-handler.prefetch=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.inbox.endpoints.charge-card-handler.prefetch"));
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.charge-card-handler.partitions=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.inbox.endpoints.charge-card-handler.partitions"));
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.charge-card-handler.retry.max-attempts=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.inbox.endpoints.charge-card-handler.retry.max-attempts"));
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.charge-card-handler.never-retry=java.lang.String")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.inbox.endpoints.charge-card-handler.never-retry")
				.hasMessageContaining("must be a Throwable"));
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.endpoints.charge-card-handler.bindings[0].routing-key=x")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("waybill.inbox.endpoints.charge-card-handler.bindings[0].exchange"));
	}

	@Test
	void handlersOfOneQueueSettingOneAttributeDifferentlyFailStartupNamingBoth() {
		runner.withUserConfiguration(BillingCardHandler.class, FastBillingRefundHandler.class)
			.run((context) -> assertFailure(context, "@Consumer(concurrency) differs between the handlers of queue "
					+ "'billing': 1 on bean '", BillingCardHandler.class.getName(), ", 8 on bean '",
					FastBillingRefundHandler.class.getName()));
	}

	@Test
	void aBadRetryIntervalOnTheAnnotationFailsStartupNamingTheClass() {
		runner.withUserConfiguration(BadIntervalHandler.class)
			.run((context) -> assertFailure(context, "@Consumer(retryInterval = \"soon\") on bean",
					BadIntervalHandler.class.getName()));
	}

	@Test
	void anInvalidQueueNameFailsStartupNamingTheBean() {
		runner.withUserConfiguration(ReservedQueueHandler.class)
			.run((context) -> assertFailure(context, "would consume queue 'amq.charges', which must not start with "
					+ "'amq.', which the broker reserves. Set @Consumer(queue = \"...\") on its class to a valid name."));
	}

	@Test
	void aNegativeConsumerSettingFailsStartupNamingTheClass() {
		runner.withUserConfiguration(NegativeConcurrencyHandler.class)
			.run((context) -> assertFailure(context, "@Consumer(concurrency = -2) on bean",
					NegativeConcurrencyHandler.class.getName(), "must be at least 1, or 0 for waybill.inbox.endpoints.negative-concurrency-handler.concurrency"));
	}

	private static void assertFailure(AssertableApplicationContext context, String... fragments) {
		assertThat(context).hasFailed();
		assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class);
		for (String fragment : fragments) {
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(fragment);
		}
	}

	@MessageType("test.charge-card")
	record ChargeCard(String order) {
	}

	static class ChargeCardHandler implements MessageHandler<ChargeCard> {

		@Override
		public void handle(ChargeCard message, MessageContext context) {
		}

	}

	@Consumer(queue = "charge-card-handler")
	static class AnotherChargeCardHandler extends ChargeCardHandler {

	}

	@MessageType("test.refund")
	record Refund(String order) {
	}

	@Consumer(queue = "billing", concurrency = 1, neverRetry = IllegalArgumentException.class)
	static class BillingCardHandler extends ChargeCardHandler {

	}

	@Consumer(queue = "billing")
	static class BillingRefundHandler implements MessageHandler<Refund> {

		@Override
		public void handle(Refund message, MessageContext context) {
		}

	}

	@Consumer(queue = "billing", concurrency = 8)
	static class FastBillingRefundHandler extends BillingRefundHandler {

	}

	@Consumer(retryInterval = "soon")
	static class BadIntervalHandler extends ChargeCardHandler {

	}

	@Consumer(queue = "amq.charges")
	static class ReservedQueueHandler extends ChargeCardHandler {

	}

	@Consumer(concurrency = -2)
	static class NegativeConcurrencyHandler extends ChargeCardHandler {

	}

	@MessageType("test.envelope")
	static class Envelope<T> {

		public T item;

	}

	@MessageType("test.charge-card-envelope")
	static class ChargeCardEnvelope extends Envelope<ChargeCard> {

	}

	static class EnvelopeHandler implements MessageHandler<Envelope<ChargeCard>> {

		@Override
		public void handle(Envelope<ChargeCard> message, MessageContext context) {
		}

	}

	static class EnvelopeFaultHandler implements MessageHandler<Fault<Envelope<ChargeCard>>> {

		@Override
		public void handle(Fault<Envelope<ChargeCard>> message, MessageContext context) {
		}

	}

	static class AnyEnvelopeHandler implements MessageHandler<Envelope<?>> {

		@Override
		public void handle(Envelope<?> message, MessageContext context) {
		}

	}

	static class ChargeCardEnvelopeHandler implements MessageHandler<ChargeCardEnvelope> {

		@Override
		public void handle(ChargeCardEnvelope message, MessageContext context) {
		}

	}

	static class OpenHandler<T> implements MessageHandler<T> {

		@Override
		public void handle(T message, MessageContext context) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LambdaHandlerConfiguration {

		@Bean
		MessageHandler<ChargeCard> lambdaHandler() {
			return (message, context) -> {
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OpenHandlerConfiguration {

		@Bean
		OpenHandler<ChargeCard> openHandler() {
			return new OpenHandler<>();
		}

	}

}
