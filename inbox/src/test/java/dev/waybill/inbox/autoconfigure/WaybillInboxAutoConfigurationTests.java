package dev.waybill.inbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.internal.metrics.InboxMetrics;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.test.InboxContext;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

class WaybillInboxAutoConfigurationTests {

	private static TestSchema schema;

	private static ApplicationContextRunner runner;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("inbox_autoconfig");
		runner = InboxContext.runner(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void aWronglyTypedValueStopsTheStartUpBeforeTheSchemaIsMigrated() {
		String unmigrated = "inbox_unmigrated_" + UUID.randomUUID().toString().substring(0, 8);
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		try {
			runner.withPropertyValues("waybill.schema=" + unmigrated, "waybill.inbox.batch.linger=fast")
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("fast"));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?",
					Integer.class, unmigrated)).as("no schema made for a context that cannot start").isZero();
		}
		finally {
			jdbc.execute("DROP SCHEMA IF EXISTS " + unmigrated + " CASCADE");
		}
	}

	@Test
	void registersEveryHandlerBeanUnderItsQueueWithTheConfiguredDefaults() {
		runner.withUserConfiguration(ChargeCardHandler.class, RefundHandler.class)
			.withPropertyValues("waybill.inbox.concurrency=2", "waybill.inbox.queue-arguments.x-queue-type=quorum",
					"waybill.inbox.queue-arguments.x-max-length=1000",
					"waybill.inbox.queue-arguments.x-single-active-consumer=true")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(InboxProcessor.class).hasSingleBean(InboxStore.class)
					.hasSingleBean(InboxAdmin.class);
				ConsumerRegistry registry = context.getBean(ConsumerRegistry.class);
				assertThat(registry.registrations()).extracting(ConsumerRegistration::queue)
					.containsExactlyInAnyOrder("charge-card-handler", "refunds");

				ConsumerRegistration<?> charge = registry.find("charge-card-handler").orElseThrow();
				assertThat(charge.messageType()).isEqualTo("test.charge-card");
				assertThat(charge.payloadClass()).isEqualTo(ChargeCard.class);
				assertThat(charge.handler()).isSameAs(context.getBean(ChargeCardHandler.class));
				ReceiveEndpoint charges = registry.receiveEndpoint("charge-card-handler").orElseThrow();
				assertThat(charges.concurrency()).isEqualTo(2);
				assertThat(charges.prefetch()).isEqualTo(32);
				assertThat(charges.queueArguments()).containsExactly(Map.entry("x-queue-type", "quorum"),
						Map.entry("x-max-length", 1000L), Map.entry("x-single-active-consumer", true));

				ConsumerRegistration<?> refund = registry.find("refunds").orElseThrow();
				assertThat(refund.messageType()).isEqualTo("test.refund");
				ReceiveEndpoint refunds = registry.receiveEndpoint("refunds").orElseThrow();
				assertThat(refunds.concurrency()).isEqualTo(3);
				assertThat(refunds.prefetch()).isEqualTo(5);
			});
	}

	@Test
	void theInboxMetersHearTheAutoConfiguredProcessor() {
		runner.withConfiguration(AutoConfigurations.of(WaybillInboxMetricsAutoConfiguration.class))
			.withUserConfiguration(ChargeCardHandler.class)
			.run((context) -> {
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				context.getBean(InboxMetrics.class).bindTo(registry); // as Spring Boot's metrics support does
				ConsumerRegistration<?> consumer = context.getBean(ConsumerRegistry.class)
					.find("charge-card-handler")
					.orElseThrow();

				context.getBean(InboxProcessor.class).process(consumer, TestInbox.inbound(new ChargeCard("o-m")));

				assertThat(registry.get(InboxMetrics.DELIVERIES)
					.tags("queue", "charge-card-handler", "outcome", "processed")
					.counter()
					.count()).isOne();
			});
	}

	@Test
	void everyDiscoveredConsumersCountersExistAtZeroBeforeItsFirstEvent() {
		runner.withConfiguration(AutoConfigurations.of(WaybillInboxMetricsAutoConfiguration.class))
			.withUserConfiguration(ChargeCardHandler.class, RefundHandler.class)
			.run((context) -> {
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				context.getBean(InboxMetrics.class).bindTo(registry); // as Spring Boot's metrics support does

				for (String queue : List.of("charge-card-handler", "refunds")) {
					assertThat(registry.get(InboxMetrics.POISON).tags("queue", queue).counter().count()).isZero();
					assertThat(registry.get(InboxMetrics.ROLLED_BACK).tags("queue", queue).counter().count()).isZero();
					assertThat(registry.get(InboxMetrics.IN_FLIGHT).tags("queue", queue).gauge().value()).isZero();
					assertThat(registry.get(InboxMetrics.DELIVERIES).tags("queue", queue).counters())
						.extracting((counter) -> counter.getId().getTag("outcome"))
						.containsExactlyInAnyOrder("processed", "duplicate", "retry_scheduled", "faulted",
								"already_faulted");
				}
				assertThat(registry.get(InboxMetrics.POISON).tags("queue", "refunds").counter().getId().getTag("type"))
					.isEqualTo("test.refund");
			});
	}

	@Test
	void theProcessorHandlesADiscoveredConsumerInTheApplicationsTransaction() {
		runner.withUserConfiguration(ChargeCardHandler.class).run((context) -> {
			ConsumerRegistration<?> consumer = context.getBean(ConsumerRegistry.class)
				.find("charge-card-handler")
				.orElseThrow();
			InboundMessage message = TestInbox.inbound(new ChargeCard("o-1"));
			InboxProcessor processor = context.getBean(InboxProcessor.class);

			assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);
			assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.DUPLICATE);

			assertThat(context.getBean(ChargeCardHandler.class).calls).hasValue(1);
			assertThat(new JdbcTemplate(schema.dataSource()).queryForObject("SELECT receive_count FROM "
					+ schema.tables().qualifiedInboxState() + " WHERE message_id = ?", Integer.class,
					UUID.fromString(message.messageId()))).isEqualTo(2);
		});
	}

	@Test
	void aTransactionManagerThatCannotBatchIsNamedAtStartUp() {
		List<String> lines = processorLines(runner.withUserConfiguration(ChargeCardHandler.class)
			.withBean("transactionManager", PlatformTransactionManager.class, NotJdbcTransactionManager::new), (context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(InboxProcessor.class).whyNotBatched()).contains("NotJdbcTransactionManager");
			});
		assertThat(lines).containsExactly("INFO Waybill's inbox handles each delivery in a transaction of its own, "
				+ "not in batches of up to 16 (waybill.inbox.batch.max-size): batched transactions need a JDBC "
				+ "transaction manager (DataSourceTransactionManager or JdbcTransactionManager), and the "
				+ "application's is NotJdbcTransactionManager");
	}

	@Test
	void aTransactionManagerOfAnotherDataSourceFailsStartUpInsteadOfEveryDelivery() {
		// A handlers probe: with only a second DataSource's transaction manager declared, the service
		// started, then sent every delivery to the error queue ("cannot be recorded, not even as a fault").
		try (HikariDataSource other = TestPostgres.get().pool("inbox-other", 2)) {
			runner.withUserConfiguration(ChargeCardHandler.class)
				.withBean("transactionManager", PlatformTransactionManager.class,
						() -> new DataSourceTransactionManager(other))
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.hasMessageContaining("does not manage the DataSource of Waybill's tables")
					.hasMessageContaining("DataSourceTransactionManager"));
		}
	}

	@Test
	void theJdbcTransactionManagerBatchesWithoutAWord() {
		assertThat(processorLines(runner.withUserConfiguration(ChargeCardHandler.class),
				(context) -> assertThat(context.getBean(InboxProcessor.class).whyNotBatched()).isNull()))
			.isEmpty();
	}

	@Test
	void unbatchedBySettingIsNotReported() {
		assertThat(processorLines(runner.withUserConfiguration(ChargeCardHandler.class)
			.withPropertyValues("waybill.inbox.batch.max-size=1")
			.withBean("transactionManager", PlatformTransactionManager.class, NotJdbcTransactionManager::new),
				(context) -> assertThat(context).hasNotFailed()))
			.isEmpty();
	}

	/** What the processor's logger says while a context of {@code runner} starts and runs {@code check}. */
	private static List<String> processorLines(ApplicationContextRunner runner,
			ContextConsumer<AssertableApplicationContext> check) {
		Logger logger = (Logger) LoggerFactory.getLogger(InboxProcessor.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.setLevel(Level.INFO);
		logger.addAppender(appender);
		try {
			runner.run(check);
		}
		finally {
			logger.detachAppender(appender);
			logger.setLevel(null);
		}
		return appender.list.stream().map((event) -> event.getLevel() + " " + event.getFormattedMessage()).toList();
	}

	/** Stands for JPA's or JTA's: a transaction manager that is not a DataSourceTransactionManager. */
	static final class NotJdbcTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			throw new UnsupportedOperationException();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			throw new UnsupportedOperationException();
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			throw new UnsupportedOperationException();
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
			throw new UnsupportedOperationException();
		}

	}

	@Test
	void everyInboxListenerBeanHearsEachOutcomeInOrder() {
		List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withBean("first", InboxListener.class, () -> (consumer, message, outcome) -> heard.add("first " + outcome))
			.withBean("second", InboxListener.class, () -> (consumer, message, outcome) -> heard.add("second " + outcome))
			.run((context) -> {
				ConsumerRegistration<?> consumer = context.getBean(ConsumerRegistry.class)
					.find("charge-card-handler")
					.orElseThrow();
				InboundMessage message = TestInbox.inbound(new ChargeCard("o-listened"));
				InboxProcessor processor = context.getBean(InboxProcessor.class);

				processor.process(consumer, message);
				processor.process(consumer, message);

				assertThat(heard).containsExactly("first PROCESSED", "second PROCESSED", "first DUPLICATE",
						"second DUPLICATE");
			});
	}

	@Test
	void aCustomOutboxPublisherNeedsNoDowncastToTieAHandlersMessagesToTheInboundOne() {
		runner.withUserConfiguration(CustomPublisherConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ConsumerRegistration<?> consumer = context.getBean(ConsumerRegistry.class)
				.find("refunding-handler")
				.orElseThrow();
			InboundMessage message = TestInbox.inbound(new ChargeCard("o-custom"));

			assertThat(context.getBean(InboxProcessor.class).process(consumer, message))
				.isEqualTo(InboxOutcome.PROCESSED);

			assertThat(context.getBean(CountingPublisher.class).published).hasValue(1);
			assertThat(new JdbcTemplate(schema.dataSource()).queryForObject("SELECT consumer_id FROM "
					+ schema.tables().qualifiedOutboxState() + " WHERE inbound_message_id = ?", String.class,
					UUID.fromString(message.messageId()))).isEqualTo("refunding-handler");
		});
	}

	@Test
	void theMessageTypeOfAProxiedHandlerComesFromItsTargetClass() {
		runner.withUserConfiguration(ProxiedHandlerConfiguration.class).run((context) -> {
			ConsumerRegistration<?> consumer = context.getBean(ConsumerRegistry.class)
				.find("charge-card-handler")
				.orElseThrow();
			assertThat(consumer.payloadClass()).isEqualTo(ChargeCard.class);
			assertThat(consumer.handler()).isSameAs(context.getBean("proxiedHandler"));
		});
	}

	@Test
	void theDefaultsAreTheDocumentedOnes() {
		runner.run((context) -> {
			WaybillInboxProperties properties = context.getBean(WaybillInboxProperties.class);
			assertThat(properties.getConcurrency()).isEqualTo(ReceiveEndpoint.DEFAULT_CONCURRENCY);
			assertThat(properties.getPrefetch()).isEqualTo(ReceiveEndpoint.DEFAULT_PREFETCH);
			assertThat(properties.queueArgumentValues()).isEmpty();
			assertThat(properties.getDuplicateDetectionWindow()).isEqualTo(Duration.ofMinutes(30));
			assertThat(properties.getRetry().getImmediate()).isZero();
			assertThat(properties.toRetryPolicy()).isEqualTo(new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL,
					Duration.ofSeconds(1), 2, Duration.ofMinutes(5), 5, 0.2));
		});
	}

	@Test
	void withoutAHandlerThereIsNoConsumerSide() {
		runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(InboxProcessor.class)
			.doesNotHaveBean(ConsumerRegistry.class)
			.doesNotHaveBean(InboxStore.class)
			.doesNotHaveBean(InboxAdmin.class));
	}

	@Test
	void backsOffWithoutTheOutbox() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WaybillInboxAutoConfiguration.class))
			.withUserConfiguration(ChargeCardHandler.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(InboxProcessor.class)
				.doesNotHaveBean(ConsumerRegistry.class));
	}

	@Test
	void theApplicationsOwnRegistryWins() {
		ConsumerRegistry own = ConsumerRegistry.of(List.of());
		runner.withUserConfiguration(ChargeCardHandler.class)
			.withBean(ConsumerRegistry.class, () -> own)
			.run((context) -> assertThat(context.getBean(ConsumerRegistry.class)).isSameAs(own));
	}

	@MessageType("test.charge-card")
	record ChargeCard(String order) {
	}

	@MessageType("test.refund")
	record Refund(String order) {
	}

	static class ChargeCardHandler implements MessageHandler<ChargeCard> {

		final AtomicInteger calls = new AtomicInteger();

		@Override
		public void handle(ChargeCard message, MessageContext context) {
			this.calls.incrementAndGet();
		}

	}

	@Consumer(queue = "refunds", concurrency = 3, prefetch = 5)
	static class RefundHandler implements MessageHandler<Refund> {

		@Override
		public void handle(Refund message, MessageContext context) {
		}

	}

	static class RefundingHandler implements MessageHandler<ChargeCard> {

		@Override
		public void handle(ChargeCard message, MessageContext context) {
			context.publish(new Refund(message.order()));
		}

	}

	/** An application's own publisher: not Waybill's class, so nothing may downcast it. */
	static final class CountingPublisher implements OutboxPublisher {

		final AtomicInteger published = new AtomicInteger();

		private final OutboxPublisher delegate;

		CountingPublisher(OutboxPublisher delegate) {
			this.delegate = delegate;
		}

		@Override
		public UUID publish(Object message, java.util.function.Consumer<PublishOptions> options) {
			this.published.incrementAndGet();
			return this.delegate.publish(message, options);
		}

		@Override
		public UUID send(String destination, Object message, java.util.function.Consumer<PublishOptions> options) {
			this.published.incrementAndGet();
			return this.delegate.send(destination, message, options);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomPublisherConfiguration {

		@Bean
		RefundingHandler refundingHandler() {
			return new RefundingHandler();
		}

		@Bean
		CountingPublisher countingPublisher(OutboxMessageFactory messages, OutboxWriter writer, RelayWakeUp wakeUp) {
			return new CountingPublisher(TestOutbox.publisher(messages, writer, wakeUp));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ProxiedHandlerConfiguration {

		@Bean
		MessageHandler<?> proxiedHandler() {
			ProxyFactory factory = new ProxyFactory(new ChargeCardHandler());
			factory.setInterfaces(MessageHandler.class); // a JDK proxy: its class names no message type
			return (MessageHandler<?>) factory.getProxy();
		}

	}

}
