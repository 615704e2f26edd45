package dev.waybill.outbox.autoconfigure;

import java.time.Clock;
import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.kernel.HostNames;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.observation.WaybillObservationProperties;
import dev.waybill.outbox.internal.DefaultConsumerOutbox;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.internal.DefaultOutboxMessageFactory;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxBrowser;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.jdbc.OutboxSchemaInitializer;
import dev.waybill.outbox.internal.observation.ObservedOutboxMessageFactory;
import dev.waybill.outbox.internal.relay.PostgresCommitNotifier;
import dev.waybill.outbox.internal.store.DefaultStoreAdmins;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.DefaultWaybillStores.Migration;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.internal.store.StoreRouting;
import dev.waybill.outbox.observation.OutboxPublishObservationConvention;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.OutboxWriter;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.store.StoreAdmins;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Auto-configures the outbox on the application's {@link DataSource}: validates
 * {@code waybill.*} (an unknown key fails start-up, see {@link UnknownWaybillPropertyException}), applies the schema (unless {@code waybill.liquibase.enabled=false}) and
 * provides the {@link OutboxPublisher}. Every bean backs off when the application defines its own.
 *
 * @since 0.1
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass(JdbcTemplate.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties({ WaybillProperties.class, WaybillObservationProperties.class })
public final class WaybillAutoConfiguration {

	/** The property that turns the schema initializer off. */
	public static final String LIQUIBASE_ENABLED_PROPERTY = "waybill.liquibase.enabled";

	@Bean
	static PropertyKeysCheck waybillPropertyKeysCheck() {
		return new PropertyKeysCheck();
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxTables waybillOutboxTables(WaybillProperties properties) {
		return properties.toTables();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnClass(name = "liquibase.integration.spring.SpringLiquibase")
	@ConditionalOnProperty(name = LIQUIBASE_ENABLED_PROPERTY, matchIfMissing = true)
	OutboxSchemaInitializer waybillSchemaInitializer(DataSource dataSource, OutboxTables tables,
			ListableBeanFactory beans) {
		bindWaybillProperties(beans);
		return new OutboxSchemaInitializer(dataSource, tables);
	}

	/**
	 * Binds and checks every Waybill property group of the context before the schema is migrated,
	 * so that a misspelt value (a duration such as {@code fast}) or a broken rule stops the
	 * start-up before it changes the database.
	 */
	private static void bindWaybillProperties(ListableBeanFactory beans) {
		for (String name : beans.getBeanNamesForAnnotation(ConfigurationProperties.class)) {
			Class<?> type = beans.getType(name, false);
			if (type != null && type.getPackageName().startsWith("dev.waybill.")) {
				beans.getBean(name);
			}
		}
	}

	@Bean
	@ConditionalOnMissingBean
	JdbcOutboxStore waybillOutboxStore(DataSource dataSource, OutboxTables tables,
			ObjectProvider<OutboxSchemaInitializer> schema) {
		schema.getIfAvailable(); // created first, so the tables exist before the store is used
		return new JdbcOutboxStore(dataSource, tables);
	}

	@Bean
	@ConditionalOnMissingBean(WaybillStores.class)
	DefaultWaybillStores waybillStores(DataSource dataSource, OutboxTables tables, JdbcOutboxStore store,
			ObjectProvider<OutboxSchemaInitializer> schema, WaybillProperties properties, ListableBeanFactory beans,
			ObjectProvider<StoreResolver> resolver, ObjectProvider<WaybillStore> storeBeans) {
		Migration migration = (schema.getIfAvailable() != null)
				? (storeDataSource, storeTables) -> new OutboxSchemaInitializer(storeDataSource, storeTables).migrate()
				: Migration.NONE;
		DefaultWaybillStores stores = new DefaultWaybillStores(new RegisteredStore(
				new WaybillStore(WaybillStore.DEFAULT_NAME, dataSource, tables.schema()), tables, store, store), migration);
		// Every write of the default store's goes to its transaction's store: the publisher's, the
		// consumer outbox's, the Hibernate integration's and an application's own writer's.
		store.setRouting(new StoreRouting(stores, resolver.getIfUnique()));
		properties.getStores().forEach((name, configured) -> {
			String property = "waybill.stores." + name;
			DataSource storeDataSource = dataSource;
			if (configured.getDataSource() != null) {
				if (!beans.containsBean(configured.getDataSource())) {
					throw new InvalidConfigurationPropertyValueException(property + ".data-source", configured.getDataSource(),
							"There is no bean of that name. Name the DataSource bean the store lives in.");
				}
				storeDataSource = beans.getBean(configured.getDataSource(), DataSource.class);
			}
			String storeSchema = properties.storeSchema(name, tables);
			try {
				stores.register(new WaybillStore(name, storeDataSource, storeSchema));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property + ".schema", storeSchema, ex.getMessage());
			}
		});
		// An application that lists its tenants in code (from its own table, say) declares them as beans.
		storeBeans.orderedStream().forEach(stores::register);
		return stores;
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	PostgresCommitNotifier waybillCommitNotifier(DataSource dataSource, OutboxTables tables,
			ObjectProvider<WaybillThreads> threads, ObjectProvider<DefaultWaybillStores> stores) {
		PostgresCommitNotifier notifier = new PostgresCommitNotifier(dataSource, tables.notifyChannel(),
				threads.getIfAvailable(WaybillThreads::platform));
		// Other stores' commits are told on the default store's channel, which every instance listens to.
		stores.ifAvailable((registry) -> registry.addListener(new DefaultWaybillStores.Listener() {
			@Override
			public void registered(RegisteredStore store) {
			}

			@Override
			public void deregistered(RegisteredStore store) {
			}

			@Override
			public void written(String name) {
				notifier.notifyStore(name);
			}
		}));
		return notifier;
	}

	@Bean
	@ConditionalOnMissingBean
	RelayWakeUp waybillRelayWakeUp(PostgresCommitNotifier notifier) {
		return new RelayWakeUp(notifier);
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxMessageFactory waybillOutboxMessageFactory(WaybillProperties properties, MessageSerializer serializer,
			OutboxBacklog backlog, ObjectProvider<Transport> transport, WaybillObservationProperties observation,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<OutboxPublishObservationConvention> convention) {
		Transport headerLimit = transport.getIfUnique();
		OutboxMessageFactory factory = new DefaultOutboxMessageFactory(serializer,
				properties.getOutbox().maxMessageBytesChecked(), Clock.systemUTC(), HostNames.local(), backlog,
				properties.getOutbox().maxPendingChecked(),
				(headerLimit != null) ? headerLimit::maxHeaderBytes : () -> Transport.DEFAULT_MAX_HEADER_BYTES);
		ObservationRegistry registry = observation.registry(observationRegistry.getIfUnique());
		// no registry, no wrapper: the untraced publish path stays as it was
		return registry.isNoop() ? factory
				: new ObservedOutboxMessageFactory(factory, registry, convention.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxPublisher waybillOutboxPublisher(OutboxMessageFactory messages, OutboxWriter writer, RelayWakeUp wakeUp) {
		return new DefaultOutboxPublisher(messages, writer, wakeUp);
	}

	@Bean
	@ConditionalOnMissingBean
	ConsumerOutbox waybillConsumerOutbox(OutboxWriter writer, RelayWakeUp wakeUp) {
		return new DefaultConsumerOutbox(writer, wakeUp);
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxBacklog waybillOutboxBacklog() {
		return new OutboxBacklog();
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxAdmin waybillOutboxAdmin(OutboxStore store, RelayWakeUp wakeUp, DataSource dataSource, OutboxTables tables,
			AdminAudit audit) {
		return new DefaultOutboxAdmin(store, wakeUp, new JdbcOutboxBrowser(dataSource, tables), audit);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DefaultWaybillStores.class)
	StoreDueProbes waybillStoreDueProbes(DefaultWaybillStores stores) {
		return new StoreDueProbes(stores);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DefaultWaybillStores.class)
	StoreAdmins waybillStoreAdmins(OutboxAdmin admin, DefaultWaybillStores stores, RelayWakeUp wakeUp, AdminAudit audit) {
		return new DefaultStoreAdmins(admin, stores, wakeUp, audit);
	}

	@Bean
	@ConditionalOnMissingBean
	AdminAudit waybillAdminAudit(ObjectProvider<AdminAudit.ActionCounter> counters) {
		return new AdminAudit(counters::orderedStream, Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	MessageSerializer waybillMessageSerializer(ObjectProvider<JsonMapper> applicationMapper) {
		JsonMapper mapper = applicationMapper.getIfUnique();
		return (mapper != null) ? new JacksonMessageSerializer(mapper) : new JacksonMessageSerializer();
	}

	/**
	 * Waybill's threads: virtual when {@code spring.threads.virtual.enabled=true} on Java 21+.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ThreadsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnThreading(Threading.VIRTUAL)
		WaybillThreads waybillVirtualThreads() {
			return WaybillThreads.virtual();
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnThreading(Threading.PLATFORM)
		WaybillThreads waybillThreads() {
			return WaybillThreads.platform();
		}

	}

	/**
	 * Makes beans that use the database ({@code JdbcTemplate}, JPA) wait for the schema initializer.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer")
	@Import(DatabaseInitializationDependencyConfigurer.class)
	static class SchemaInitializationOrderConfiguration {

	}

}
