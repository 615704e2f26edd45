package dev.waybill.outbox.autoconfigure;

import static dev.waybill.outbox.test.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.Lifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.metrics.RelayMetrics;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.ForwardingOutboxStore;
import dev.waybill.outbox.test.StartupFailures;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

@ExtendWith(OutputCaptureExtension.class)
class WaybillRelayAutoConfigurationTests {

	private TestSchema schema;

	private ApplicationContextRunner runner;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("relayconfig");
		this.runner = WaybillContext.runner(this.schema.name());
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void withATransportTheRelayRunsAndDeliversWhatIsCommitted() {
		FakeTransport broker = new FakeTransport();
		this.runner.withBean(Transport.class, () -> broker).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Relay.class).hasSingleBean(PostgresNotificationListener.class)
				.hasSingleBean(RelayMetrics.class).hasSingleBean(OutboxAdmin.class);
			assertThat(context.getBean(Relay.class).isRunning()).isTrue();
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).send("orders", "hello"));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> broker.delivered().size() == 1);
		});
	}

	@Test
	void withoutATransportThereIsNoRelay() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Relay.class)
			.hasSingleBean(OutboxPublisher.class));
	}

	@Test
	void theRelayCanBeTurnedOffOnAnInstance() {
		this.runner.withBean(Transport.class, FakeTransport::new)
			.withPropertyValues("waybill.outbox.relay.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Relay.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.outbox.relay.workers|0|at least 1",
			"waybill.outbox.relay.batch-size|-5|at least 1", "waybill.outbox.relay.lease-duration|0s|a positive duration",
			"waybill.outbox.relay.poll-interval|-1s|a positive duration", "waybill.outbox.retry.interval|0ms|a positive duration",
			"waybill.outbox.retry.rate|0.5|at least 1", "waybill.outbox.retry.max-delay|100ms|at least waybill.outbox.retry.interval",
			"waybill.outbox.retry.max-attempts|0|at least 1", "waybill.outbox.retry.jitter|2|between 0 and 1",
			"waybill.outbox.circuit-breaker.failure-threshold|0|at least 1",
			"waybill.outbox.circuit-breaker.cool-down|0s|a positive duration", "waybill.outbox.max-pending|-1|at least 0" })
	void anInvalidRelayPropertyFailsStartupNamingIt(String property, String value, String rule) {
		this.runner.withBean(Transport.class, FakeTransport::new).withPropertyValues(property + "=" + value).run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo(property);
			assertThat(failure.getMessage()).contains("The value must be " + rule);
		});
	}

	/**
	 * The LISTEN connection holds a pooled connection for good: in a pool of one, a probe's relay,
	 * consumers and retention all waited on the pool for ever, logged as "database unavailable".
	 */
	@Test
	void aPoolOfOneConnectionFailsStartUpNamingThePoolSize() {
		this.runner.withBean(Transport.class, FakeTransport::new)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=1",
					"spring.datasource.hikari.connection-timeout=1000")
			.run((context) -> {
				IllegalStateException failure = StartupFailures.causedBy(context, IllegalStateException.class);
				assertThat(failure.getMessage()).contains("LISTEN connection holds one")
					.contains("spring.datasource.hikari.maximum-pool-size")
					.contains("waybill.outbox.relay.enabled=false");
			});
	}

	@Test
	void aPoolSmallerThanTheRelaysOwnNeedIsAWarning(CapturedOutput output) {
		this.runner.withBean(Transport.class, FakeTransport::new)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=3", "waybill.outbox.relay.workers=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Waybill's relay needs 4 pooled connections of its own")
					.contains("holds at most 3");
			});
	}

	@Test
	void aPoolLargeEnoughForTheRelayIsNotWarnedAbout(CapturedOutput output) {
		this.runner.withBean(Transport.class, FakeTransport::new)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4", "waybill.outbox.relay.workers=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).doesNotContain("pooled connections of its own");
			});
	}

	@Test
	void withTheRelayOffAPoolOfOneIsNotChecked() {
		this.runner.withBean(Transport.class, FakeTransport::new)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=1", "waybill.outbox.relay.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void stoppingTheRelayBeanPausesRelayingAndStartingItResumes() {
		FakeTransport broker = new FakeTransport();
		this.runner.withBean(Transport.class, () -> broker).run((context) -> {
			Lifecycle relay = context.getBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME, Lifecycle.class);
			relay.stop();
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).send("orders", "paused"));
			assertThat(relay.isRunning()).isFalse();
			Awaitility.await()
				.during(Duration.ofMillis(500))
				.atMost(Duration.ofSeconds(2))
				.until(() -> broker.delivered().isEmpty());
			relay.start();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> broker.delivered().size() == 1);
		});
	}

	@Test
	void aDecoratedStoreKeepsDirectDispatch() {
		ApplicationContextRunner decorated = this.runner.withBean(Transport.class, FakeTransport::new)
			.withUserConfiguration(DecoratedStoreConfiguration.class);
		int[] threads = new int[2];
		decorated.withPropertyValues("waybill.outbox.relay.direct-dispatch=false")
			.run((context) -> threads[0] = context.getBean(Relay.class).status().expectedThreads());
		decorated.run((context) -> threads[1] = context.getBean(Relay.class).status().expectedThreads());
		// direct dispatch runs in a worker of its own
		assertThat(threads[1]).as("the relay's threads with direct dispatch on").isEqualTo(threads[0] + 1);
	}

	@Test
	void awaitStandbysMakesTheRelayWaitForStandbysAndANegativeCountFailsStartUpNamingTheProperty() {
		ApplicationContextRunner withBroker = this.runner.withBean(Transport.class, FakeTransport::new);
		withBroker.run((context) -> assertThat(context.getBean(Relay.class).awaitsStandbys()).isFalse());
		withBroker.withPropertyValues("waybill.outbox.relay.await-standbys=1")
			.run((context) -> assertThat(context.getBean(Relay.class).awaitsStandbys()).isTrue());
		withBroker.withPropertyValues("waybill.outbox.relay.await-standbys=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property waybill.outbox.relay.await-standbys with value '-1' is invalid");
		});
	}

	/** An application's store decorator, as one that times or logs the relay's calls. */
	@Configuration(proxyBeanMethods = false)
	static class DecoratedStoreConfiguration {

		@Bean
		@Primary
		OutboxStore decoratedStore(JdbcOutboxStore store) {
			return new ForwardingOutboxStore(store) {
			};
		}

	}

}
