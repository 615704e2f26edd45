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
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
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
	void twoHandlersOnOneQueueFailStartupNamingBoth() {
		runner.withUserConfiguration(ChargeCardHandler.class, AnotherChargeCardHandler.class)
			.run((context) -> assertFailure(context, "MessageHandler beans", "both consume queue 'charge-card-handler'",
					"Set @Consumer(queue = \"...\") on one of them to a queue of its own."));
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
			.run((context) -> assertFailure(context, "@Consumer(concurrency = -2) on "
					+ NegativeConcurrencyHandler.class.getName(), "must be at least 1, or 0 for waybill.inbox.concurrency"));
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

	@Consumer(queue = "amq.charges")
	static class ReservedQueueHandler extends ChargeCardHandler {

	}

	@Consumer(concurrency = -2)
	static class NegativeConcurrencyHandler extends ChargeCardHandler {

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
