package dev.waybill.inbox.autoconfigure;

import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxLookup;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.StoreInboxLookups;
import dev.waybill.inbox.internal.DefaultStoreInboxLookups;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.InboxResources;
import dev.waybill.inbox.internal.InboxSettings;
import dev.waybill.inbox.internal.JdbcInboxAdmin;
import dev.waybill.inbox.internal.JdbcInboxLookup;
import dev.waybill.inbox.internal.StoreDeliveries;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.internal.observation.InboxObservation;
import dev.waybill.inbox.observation.InboxProcessObservationConvention;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.StoreTransactions;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.autoconfigure.observation.WaybillObservationProperties;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Auto-configures the inbox on top of the outbox: the {@link InboxProcessor} that transport
 * endpoints hand deliveries to, the {@link ConsumerRegistry} of every {@link MessageHandler}
 * bean, whose queues they consume, and the operators' {@link InboxAdmin}. Validates {@code waybill.inbox.*}; every bean backs off when
 * the application defines its own. The consumer side is created only when the application has at
 * least one {@link MessageHandler} bean, or its own {@link ConsumerRegistry}: a producer-only
 * service gets none of it.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class)
@ConditionalOnBean({ OutboxWriter.class, OutboxPublisher.class, ConsumerOutbox.class, OutboxTables.class,
		PlatformTransactionManager.class })
@EnableConfigurationProperties({ WaybillInboxProperties.class, WaybillObservationProperties.class })
public final class WaybillInboxAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@Conditional(HasConsumers.class)
	static class ConsumerSideConfiguration {

		@Bean
		@ConditionalOnMissingBean
		InboxStore waybillInboxStore(DataSource dataSource, OutboxTables tables) {
			return new InboxStore(dataSource, tables);
		}

		@Bean
		@ConditionalOnMissingBean
		InboxAdmin waybillInboxAdmin(PlatformTransactionManager transactionManager, InboxStore store) {
			return new JdbcInboxAdmin(transactionManager, store);
		}

		@Bean
		@ConditionalOnMissingBean
		InboxLookup waybillInboxLookup(DataSource dataSource, OutboxTables tables) {
			return new JdbcInboxLookup(dataSource, tables);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(WaybillStores.class)
		StoreInboxLookups waybillStoreInboxLookups(InboxLookup lookup, WaybillStores stores, OutboxTables tables) {
			return new DefaultStoreInboxLookups(lookup, stores, tables);
		}

		@Bean
		@ConditionalOnMissingBean
		InboxProcessor waybillInboxProcessor(WaybillInboxProperties properties, PlatformTransactionManager transactionManager,
				InboxStore store, OutboxWriter writer, OutboxPublisher publisher, ConsumerOutbox consumerOutbox,
				MessageSerializer serializer, RelayWakeUp wakeUp, ObjectProvider<InboxListener> listeners,
				WaybillObservationProperties observation, ObjectProvider<ObservationRegistry> observationRegistry,
				ObjectProvider<InboxProcessObservationConvention> convention, ObjectProvider<Transport> transport,
				ObjectProvider<WaybillStores> stores, OutboxTables tables) {
			InboxTransactionCheck.check(transactionManager, store.dataSource());
			InboxListener listener = listeners.orderedStream().reduce(InboxListener.NONE, InboxListener::andThen);
			InboxSettings settings = InboxSettings.of(properties.toRetryPolicy(), properties.getRetry().getImmediate())
				.withListener(listener)
				.withPublishFaults(properties.getFaults().isPublish());
			Transport headerLimit = transport.getIfUnique();
			if (headerLimit != null) {
				settings = settings.withMaxHeaderBytes(headerLimit::maxHeaderBytes);
			}
			ObservationRegistry registry = observation.registry(observationRegistry.getIfUnique());
			if (!registry.isNoop()) {
				settings = settings.withObservation(new InboxObservation(registry, convention.getIfUnique()));
			}
			InboxProcessor processor = new InboxProcessor(
					new InboxResources(transactionManager, store, writer, publisher, consumerOutbox, serializer, wakeUp),
					settings);
			WaybillStores registered = stores.getIfUnique();
			if (registered != null) {
				InboxSettings storeSettings = settings;
				StoreTransactions storeTransactions = new StoreTransactions(store.dataSource(), transactionManager);
				processor.setStores(new StoreDeliveries((name) -> registered.find(name).isPresent(), (name) -> {
					WaybillStore other = registered.find(name).orElseThrow();
					return new InboxProcessor(new InboxResources(storeTransactions.of(other.dataSource()),
							new InboxStore(other.dataSource(), tables.withSchema(other.schema())),
							writer, publisher, consumerOutbox, serializer, wakeUp), storeSettings);
				}));
			}
			String whyNotBatched = processor.whyNotBatched();
			if (properties.getBatch().getMaxSize() > 1 && whyNotBatched != null) {
				LogFactory.getLog(InboxProcessor.class)
					.info("Waybill's inbox handles each delivery in a transaction of its own, not in batches of up to "
							+ properties.getBatch().getMaxSize() + " (waybill.inbox.batch.max-size): " + whyNotBatched);
			}
			return processor;
		}

		@Bean
		@ConditionalOnMissingBean
		ConsumerRegistry waybillConsumerRegistry(ListableBeanFactory beans, WaybillInboxProperties properties) {
			return ConsumerDiscovery.discover(beans, properties);
		}

	}

	/**
	 * The application consumes: it has a MessageHandler bean, or registers its consumers itself
	 * with a ConsumerRegistry bean.
	 */
	static final class HasConsumers extends AnyNestedCondition {

		HasConsumers() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnBean(MessageHandler.class)
		static final class HandlerBeans {

		}

		@ConditionalOnBean(ConsumerRegistry.class)
		static final class OwnRegistry {

		}

	}

}
