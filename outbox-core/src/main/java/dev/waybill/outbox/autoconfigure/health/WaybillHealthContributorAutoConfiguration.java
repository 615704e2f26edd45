package dev.waybill.outbox.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.waybill.kernel.WaybillHealthComponent;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.internal.health.BacklogHealthIndicator;
import dev.waybill.outbox.internal.health.RelayHealthIndicator;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Provides the {@code waybill} health contributor when Spring Boot's health support is on the
 * class path and {@code management.health.waybill.enabled} is not {@code false}: a composite of
 * every {@link WaybillHealthComponent} bean ({@code relay} and {@code backlog} from here,
 * {@code consumers} from the RabbitMQ module).
 *
 * @since 0.1
 */
@AutoConfiguration(after = { WaybillAutoConfiguration.class, WaybillRelayAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(OutboxStore.class)
public final class WaybillHealthContributorAutoConfiguration {

	// Nested: its condition's class is only read once the outer condition found Boot's health support.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("waybill")
	@EnableConfigurationProperties(WaybillHealthProperties.class)
	static class WaybillHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "waybillBacklogHealth")
		BacklogHealthIndicator waybillBacklogHealth(OutboxStore store, WaybillHealthProperties properties,
				ObjectProvider<WaybillThreads> threads, ObjectProvider<WaybillStores> stores,
				ObjectProvider<StoreDueProbes> probes) {
			Duration maxAge = positive("waybill.health.backlog.max-age", properties.getBacklog().getMaxAge(), "5m");
			Duration timeout = positive("waybill.health.backlog.timeout", properties.getBacklog().getTimeout(), "3s");
			BacklogHealthIndicator health = new BacklogHealthIndicator(store, maxAge, timeout, Clock.systemUTC(),
					threads.getIfAvailable(WaybillThreads::platform));
			WaybillStores registered = stores.getIfUnique();
			StoreDueProbes readings = probes.getIfUnique();
			if (registered != null && readings != null) {
				health.setOtherStores(() -> registered.all().stream().map(WaybillStore::name).toList(), readings);
			}
			return health;
		}

		private static Duration positive(String property, @Nullable Duration value, String example) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new InvalidConfigurationPropertyValueException(property, value,
						"It must be positive, e.g. " + example + ".");
			}
			return value;
		}

		@Bean
		@ConditionalOnBean(Relay.class)
		@ConditionalOnMissingBean(name = "waybillRelayHealth")
		RelayHealthIndicator waybillRelayHealth(Relay relay, ObjectProvider<PostgresNotificationListener> notifications) {
			return new RelayHealthIndicator(relay, notifications.getIfAvailable());
		}

		@Bean
		@ConditionalOnMissingBean(name = "waybillHealthContributor")
		CompositeHealthContributor waybillHealthContributor(ObjectProvider<WaybillHealthComponent> components) {
			Map<String, HealthContributor> contributors = new LinkedHashMap<>();
			components.orderedStream().forEach((component) -> {
				HealthIndicator indicator = component::health;
				contributors.put(component.name(), indicator);
			});
			return CompositeHealthContributor.fromMap(contributors);
		}

	}

}
