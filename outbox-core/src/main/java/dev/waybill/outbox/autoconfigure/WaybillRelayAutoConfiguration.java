package dev.waybill.outbox.autoconfigure;

import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.observation.WaybillObservationProperties;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.autoconfigure.RelaySettingsMapper;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.observation.RelayObservation;
import dev.waybill.outbox.internal.relay.PostgresCommitNotifier;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.internal.relay.WakeUpMode;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.observation.RelayPublishObservationConvention;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;

/**
 * Runs the {@link Relay} when a {@link Transport} is available (outbox-rabbit provides one) and
 * {@code waybill.outbox.relay.enabled} is not {@code false}, with a PostgreSQL
 * {@code LISTEN} connection that wakes it when other instances commit. The relay is a restartable
 * {@link org.springframework.context.SmartLifecycle} bean named {@value #RELAY_BEAN_NAME}. With
 * {@code waybill.outbox.relay.direct-dispatch} on, the scopes Waybill's JDBC store writes are handed
 * to it after their commit, also when the application's {@link OutboxStore} bean, the one the relay
 * uses, decorates that store (to time or log its calls).
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class)
@ConditionalOnBean({ OutboxStore.class, Transport.class })
@ConditionalOnProperty(name = WaybillRelayAutoConfiguration.ENABLED_PROPERTY, matchIfMissing = true)
@EnableConfigurationProperties(WaybillObservationProperties.class)
public final class WaybillRelayAutoConfiguration {

	/** The property that turns the relay off on an instance. */
	public static final String ENABLED_PROPERTY = "waybill.outbox.relay.enabled";

	/**
	 * The name of the relay's bean, a {@link org.springframework.context.Lifecycle}: stop this
	 * Lifecycle bean to pause relaying on an instance (it finishes what it holds and gives back the
	 * scopes it claimed, and this instance's writes are then claimed like any other); start it again
	 * to resume. Nothing else changes meanwhile, so the messages written wait for the next start or
	 * another instance's relay.
	 * @since 0.1
	 */
	public static final String RELAY_BEAN_NAME = "waybillRelay";

	@Bean(name = RELAY_BEAN_NAME)
	@ConditionalOnMissingBean
	Relay waybillRelay(OutboxStore store, ObjectProvider<JdbcOutboxStore> jdbcStore, Transport transport,
			DataSource dataSource, RelayWakeUp wakeUp, WaybillProperties properties,
			ObjectProvider<RelayListener> listeners, OutboxBacklog backlog, ObjectProvider<WaybillThreads> threads,
			WaybillObservationProperties observation, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<RelayPublishObservationConvention> convention, ObjectProvider<DefaultWaybillStores> stores,
			ObjectProvider<StoreDueProbes> probes) {
		RelayListener listener = listeners.orderedStream().reduce(RelayListener.NONE, RelayListener::andThen);
		Relay relay = new Relay(store, transport, wakeUp, RelaySettingsMapper.toRelaySettings(properties.getOutbox()), listener, backlog);
		relay.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		relay.setDeadScopePolicy(properties.getOutbox().getRelay().getDeadScopeOrdering());
		int standbys = properties.getOutbox().getRelay().awaitStandbysChecked();
		if (standbys > 0) {
			relay.awaitStandbys(dataSource, standbys);
		}
		// The store that writes takes the dispatcher, even when the relay's store is a decorator of it.
		JdbcOutboxStore writer = (store instanceof JdbcOutboxStore jdbc) ? jdbc : jdbcStore.getIfUnique();
		if (properties.getOutbox().getRelay().isDirectDispatch() && writer != null) {
			writer.setDirectDispatcher(relay.enableDirectDispatch());
		}
		ObservationRegistry registry = observation.registry(observationRegistry.getIfUnique());
		if (!registry.isNoop()) {
			relay.setObservation(new RelayObservation(registry, convention.getIfUnique()));
		}
		DefaultWaybillStores registered = stores.getIfUnique();
		if (registered != null) {
			relayStores(relay, registered, probes.getIfAvailable(() -> new StoreDueProbes(registered)));
		}
		return relay;
	}

	/** Relays every store but the default one too, those registered later from their registration on. */
	private static void relayStores(Relay relay, DefaultWaybillStores stores, StoreDueProbes probes) {
		stores.addListener(new DefaultWaybillStores.Listener() {
			@Override
			public void registered(RegisteredStore store) {
				relay.stores().add(store.name(), store.relayed(), store.store().dataSource());
			}

			@Override
			public void deregistered(RegisteredStore store) {
				relay.stores().remove(store.name());
			}

			@Override
			public void written(String name) {
				relay.stores().written(name);
			}
		});
		for (RegisteredStore store : stores.registered()) {
			if (store != stores.defaultEntry()) {
				relay.stores().add(store.name(), store.relayed(), store.store().dataSource());
			}
		}
		relay.stores().setProbe(probes);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnClass(name = "org.postgresql.PGConnection")
	PostgresNotificationListener waybillNotificationListener(DataSource dataSource,
			@WaybillNotificationsDataSource ObjectProvider<DataSource> notificationsDataSource, OutboxTables tables,
			RelayWakeUp wakeUp, ObjectProvider<PostgresCommitNotifier> notifier, ObjectProvider<WaybillThreads> threads,
			WaybillProperties properties, ConfigurableListableBeanFactory beanFactory, Environment environment,
			ObjectProvider<Relay> relay) {
		NotificationProperties notifications = properties.getNotifications();
		DataSource listening = NotificationsDataSource.of(notifications, notificationsDataSource.getIfAvailable(),
				environment);
		WakeUpMode mode = WakeUpMode.valueOf(notifications.getMode().name());
		if (listening == null && mode != WakeUpMode.POLL) {
			// It holds one pooled connection for good: a pool with no other leaves everything waiting.
			ConnectionPoolCheck.check(dataSource, beanFactory, properties.getOutbox().getRelay().getWorkers());
		}
		// This instance's commits wake its relay in-process; its own notifications would only cost
		// empty claims.
		PostgresCommitNotifier ownNotifier = notifier.getIfUnique();
		PostgresNotificationListener listener = new PostgresNotificationListener(
				(listening != null) ? listening : dataSource, tables.notifyChannel(), wakeUp,
				(ownNotifier != null) ? ownNotifier.senderId() : null);
		listener.setMode(mode, dataSource, notifications.getPollInterval());
		listener.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		// Another instance's commit to another store: this relay claims from that store at once.
		listener.setStoreSignals((store) -> relay.ifAvailable((running) -> running.stores().written(store)));
		return listener;
	}

}
