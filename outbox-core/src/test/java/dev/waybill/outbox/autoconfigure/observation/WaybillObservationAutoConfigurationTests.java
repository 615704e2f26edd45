package dev.waybill.outbox.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.observation.DefaultOutboxPublishObservationConvention;
import dev.waybill.outbox.observation.DefaultRelayPublishObservationConvention;
import dev.waybill.outbox.internal.observation.ObservedOutboxMessageFactory;
import dev.waybill.outbox.observation.OutboxPublishContext;
import dev.waybill.outbox.observation.OutboxPublishObservationConvention;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.internal.DefaultOutboxMessageFactory;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Waybill observes with the application's {@link ObservationRegistry} when it has one, and not at
 * all without one or with {@code waybill.observation.enabled=false}.
 */
class WaybillObservationAutoConfigurationTests {

	private TestSchema schema;

	private ApplicationContextRunner runner;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("observationconfig");
		this.runner = WaybillContext.runner(this.schema.name());
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void withARegistryThePublishAndTheRelaysPublishAreObserved() {
		Recorder recorder = new Recorder();
		FakeTransport broker = new FakeTransport();
		this.runner.withBean(Transport.class, () -> broker)
			.withBean(ObservationRegistry.class, recorder::registry)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(OutboxMessageFactory.class)).isInstanceOf(ObservedOutboxMessageFactory.class);
				send(context, "orders", "hello");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> broker.delivered().size() == 1);
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> recorder.stopped.size() == 2);
				String id = broker.delivered().get(0).messageId().toString();
				assertThat(recorder.stopped).extracting(Observation.Context::getName)
					.containsExactly(DefaultOutboxPublishObservationConvention.NAME, DefaultRelayPublishObservationConvention.NAME);
				assertThat(recorder.stopped).allSatisfy((observed) -> {
					assertThat(observed.getLowCardinalityKeyValues()).contains(KeyValue.of("messaging.destination.name", "orders"),
							KeyValue.of("waybill.message.type", "java.lang.String"));
					assertThat(observed.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", id));
					assertThat(observed.getError()).isNull();
				});
				assertThat(recorder.stopped.get(0).getContextualName()).isEqualTo("create orders");
				assertThat(recorder.stopped.get(1).getContextualName()).isEqualTo("publish orders");
			});
	}

	@Test
	void anObservationConventionBeanReplacesTheDefault() {
		Recorder recorder = new Recorder();
		this.runner.withBean(ObservationRegistry.class, recorder::registry)
			.withBean(OutboxPublishObservationConvention.class, () -> new DefaultOutboxPublishObservationConvention() {

				@Override
				public String getName() {
					return "my.publish";
				}

			})
			.run((context) -> {
				send(context, "orders", "hello");
				assertThat(recorder.stopped).extracting(Observation.Context::getName).containsExactly("my.publish");
				assertThat(recorder.stopped.get(0)).isInstanceOf(OutboxPublishContext.class);
			});
	}

	@Test
	void withoutARegistryOrWhenTurnedOffNothingIsObserved() {
		this.runner.run((context) -> assertThat(context.getBean(OutboxMessageFactory.class))
			.isInstanceOf(DefaultOutboxMessageFactory.class));
		Recorder recorder = new Recorder();
		this.runner.withBean(ObservationRegistry.class, recorder::registry)
			.withPropertyValues("waybill.observation.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(OutboxMessageFactory.class)).isInstanceOf(DefaultOutboxMessageFactory.class);
				send(context, "orders", "hello");
				assertThat(recorder.stopped).isEmpty();
			});
	}

	private static void send(AssertableApplicationContext context, String destination, Object message) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).send(destination, message));
	}

	/** A registry whose only handler records the observations that stopped. */
	static final class Recorder {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		ObservationRegistry registry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public void onStop(Observation.Context context) {
					Recorder.this.stopped.add(context);
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			});
			return registry;
		}

	}

}
