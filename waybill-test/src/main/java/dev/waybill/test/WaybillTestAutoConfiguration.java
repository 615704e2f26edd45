package dev.waybill.test;

import java.util.List;
import java.util.function.Supplier;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessageFactory;

/**
 * The test auto-configuration {@link AutoConfigureWaybillTest @AutoConfigureWaybillTest} imports:
 * the {@link WaybillTestHarness}, the listeners that feed it, and, with
 * {@code waybill.test.transport=in-memory}, the {@link InMemoryTransport} in place of the
 * application's own. Ordered before the relay and the RabbitMQ transport so that they see it.
 *
 * @since 0.1
 */
@AutoConfiguration(before = WaybillRelayAutoConfiguration.class,
		beforeName = { "dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration",
				"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration" })
@ConditionalOnClass(OutboxPublisher.class)
@EnableConfigurationProperties(WaybillTestProperties.class)
public final class WaybillTestAutoConfiguration {

	@Bean
	Observations waybillTestObservations(ObjectProvider<ConsumerRegistry> consumers) {
		return new Observations(consumers(consumers));
	}

	@Bean
	static BeanPostProcessor waybillTestMessageFactoryRecorder(ObjectProvider<Observations> observations) {
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
				if (bean instanceof OutboxMessageFactory factory && !(bean instanceof RecordingMessageFactory)) {
					return new RecordingMessageFactory(factory, observations.getObject());
				}
				return bean;
			}
		};
	}

	@Bean
	WaybillTestHarness waybillTestHarness(Observations observations, ObjectProvider<ConsumerRegistry> consumers,
			ObjectProvider<DeliveryProcessor> processor, ObjectProvider<OutboxAdmin> admin, MessageSerializer serializer,
			ObjectProvider<InMemoryTransport> inMemory, WaybillTestProperties properties) {
		HarnessSources sources = new HarnessSources(observations, consumers(consumers), processor::getIfAvailable,
				admin::getIfAvailable, serializer, inMemory.getIfAvailable());
		return new WaybillTestHarness(sources, properties.getTimeout(), properties.getPollInterval());
	}

	static Supplier<List<ConsumerRegistration<?>>> consumers(ObjectProvider<ConsumerRegistry> registry) {
		return () -> {
			ConsumerRegistry consumers = registry.getIfAvailable();
			return (consumers != null) ? consumers.registrations() : List.of();
		};
	}

	/**
	 * The broker-less mode.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(InMemorySelected.class)
	static class InMemoryTransportConfiguration {

		@Bean
		@Primary // over a transport the application defines itself
		InMemoryTransport waybillInMemoryTransport(ObjectProvider<ConsumerRegistry> consumers,
				ObjectProvider<DeliveryProcessor> processor) {
			return new InMemoryTransport(() -> {
				ConsumerRegistry registry = consumers.getIfAvailable();
				return (registry != null) ? registry.receiveEndpoints() : List.of();
			}, processor::getObject);
		}

	}


	/**
	 * {@code waybill.test.transport} is {@code in-memory}, in any of the forms relaxed binding accepts.
	 */
	static final class InMemorySelected extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			TestTransport transport = Binder.get(context.getEnvironment())
				.bind("waybill.test.transport", TestTransport.class)
				.orElse(TestTransport.BROKER);
			return (transport == TestTransport.IN_MEMORY)
					? ConditionOutcome.match("waybill.test.transport is in-memory")
					: ConditionOutcome.noMatch("waybill.test.transport is " + transport);
		}

	}

}
