package dev.waybill.outbox.hibernate.internal;

import java.util.Objects;
import java.util.function.Supplier;

import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;

/**
 * Registers Waybill's flush and merge listeners with a Hibernate {@code SessionFactory}, after
 * Hibernate's own. The Spring Boot auto-configuration adds it through
 * {@code hibernate.integrator_provider}; without Boot, add it the same way:
 * <pre>{@code
 * properties.put(JpaSettings.INTEGRATOR_PROVIDER,
 *     (IntegratorProvider) () -> List.of(new OutboxEventsIntegrator(() -> hibernateOutbox)));
 * }</pre>
 *
 * @since 0.1
 */
public final class OutboxEventsIntegrator implements org.hibernate.integrator.spi.Integrator {

	private final Supplier<HibernateOutbox> outbox;

	/**
	 * Creates the integrator.
	 * @param outbox the outbox, resolved at the first flush that has events (so it may depend on
	 * the {@code EntityManagerFactory} being built)
	 */
	public OutboxEventsIntegrator(Supplier<HibernateOutbox> outbox) {
		this.outbox = Objects.requireNonNull(outbox, "outbox must not be null");
	}

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		EventListenerRegistry registry = sessionFactory.getServiceRegistry().requireService(EventListenerRegistry.class);
		EntityEventListener listener = new EntityEventListener(this.outbox);
		registry.appendListeners(EventType.FLUSH_ENTITY, listener);
		registry.appendListeners(EventType.MERGE, listener);
	}

}
