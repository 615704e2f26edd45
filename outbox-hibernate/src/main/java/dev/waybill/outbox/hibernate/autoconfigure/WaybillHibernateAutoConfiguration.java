package dev.waybill.outbox.hibernate.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.persistence.EntityManagerFactory;
import org.hibernate.boot.model.naming.PhysicalNamingStrategy;
import org.hibernate.boot.model.naming.PhysicalNamingStrategyStandardImpl;
import org.hibernate.cfg.MappingSettings;
import org.hibernate.engine.spi.SessionImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.jpa.boot.spi.IntegratorProvider;
import org.hibernate.jpa.boot.spi.JpaSettings;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.util.ClassUtils;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.hibernate.internal.HibernateOutbox;
import dev.waybill.outbox.hibernate.internal.OutboxEventsIntegrator;
import dev.waybill.outbox.hibernate.jpa.WaybillNamingStrategy;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxMessageFactory;

/**
 * Auto-configures the outbox of a Spring Boot JPA (Hibernate) application: entity events and
 * {@link OutboxPublisher} messages are written by the Hibernate session of the transaction
 * ({@link HibernateOutbox}, the primary {@code OutboxWriter}), the flush listeners are registered
 * with the application's {@code EntityManagerFactory}, and Waybill's JPA mappings follow
 * {@code waybill.schema} and {@code waybill.tables.*}.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class,
		afterName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({ SessionImplementor.class, EntityManagerHolder.class, HibernatePropertiesCustomizer.class })
@ConditionalOnBean({ EntityManagerFactory.class, ConnectionOutboxWriter.class })
public final class WaybillHibernateAutoConfiguration {

	@Bean
	@Primary
	@ConditionalOnMissingBean
	HibernateOutbox waybillHibernateOutbox(EntityManagerFactory entityManagerFactory, ConnectionOutboxWriter store,
			ObjectProvider<OutboxMessageFactory> messages, RelayWakeUp wakeUp) {
		return new HibernateOutbox(entityManagerFactory, store, messages::getObject, wakeUp);
	}

	@Bean
	HibernatePropertiesCustomizer waybillHibernatePropertiesCustomizer(ObjectProvider<HibernateOutbox> outbox,
			OutboxTables tables) {
		return (properties) -> {
			addIntegrator(properties, new OutboxEventsIntegrator(outbox::getObject));
			PhysicalNamingStrategy delegate = physicalNamingStrategy(properties.get(MappingSettings.PHYSICAL_NAMING_STRATEGY));
			properties.put(MappingSettings.PHYSICAL_NAMING_STRATEGY, new WaybillNamingStrategy(delegate, tables.schema(),
					tables.outboxState(), tables.outboxMessage(), tables.inboxState()));
		};
	}

	private static void addIntegrator(Map<String, Object> properties, Integrator integrator) {
		Object existing = properties.get(JpaSettings.INTEGRATOR_PROVIDER);
		List<Integrator> integrators = new ArrayList<>();
		if (existing instanceof IntegratorProvider provider) {
			integrators.addAll(provider.getIntegrators());
		}
		else if (existing != null) {
			throw new IllegalStateException(JpaSettings.INTEGRATOR_PROVIDER + " is set to " + existing
					+ "; Waybill can only add its integrator to an IntegratorProvider instance");
		}
		integrators.add(integrator);
		List<Integrator> all = List.copyOf(integrators);
		properties.put(JpaSettings.INTEGRATOR_PROVIDER, (IntegratorProvider) () -> all);
	}

	private static PhysicalNamingStrategy physicalNamingStrategy(@Nullable Object configured) {
		if (configured == null) {
			return PhysicalNamingStrategyStandardImpl.INSTANCE;
		}
		if (configured instanceof PhysicalNamingStrategy strategy) {
			return strategy;
		}
		Class<?> type = (configured instanceof Class<?> configuredClass) ? configuredClass
				: ClassUtils.resolveClassName(configured.toString(), WaybillHibernateAutoConfiguration.class.getClassLoader());
		return (PhysicalNamingStrategy) BeanUtils.instantiateClass(type);
	}

}
