package dev.waybill.outbox.hibernate.internal;

import java.util.function.Supplier;

import org.hibernate.Hibernate;
import org.hibernate.engine.spi.EntityEntry;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.FlushEntityEvent;
import org.hibernate.event.spi.FlushEntityEventListener;
import org.hibernate.event.spi.MergeContext;
import org.hibernate.event.spi.MergeEvent;
import org.hibernate.event.spi.MergeEventListener;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.hibernate.OutboxEventSource;

/**
 * Hands the events of entities to the {@link HibernateOutbox}: of every entity a flush visits
 * (inserted, updated, deleted or unchanged), and of the detached or new instance a merge copies
 * into the persistence context (a merge copies persistent state only, so its {@code @Transient}
 * events would otherwise be lost; Spring Data's {@code save} merges entities that are not new).
 */
final class EntityEventListener implements FlushEntityEventListener, MergeEventListener {

	private final Supplier<HibernateOutbox> outbox;

	EntityEventListener(Supplier<HibernateOutbox> outbox) {
		this.outbox = outbox;
	}

	@Override
	public void onFlushEntity(FlushEntityEvent event) {
		if (event.getEntity() instanceof OutboxEventSource source && !source.pendingOutboxEvents().isEmpty()) {
			EntityEntry entry = event.getEntityEntry();
			this.outbox.get().collect(event.getSession(), source, describe(entry.getEntityName(), entry.getId()),
					orderingKey(entry.getEntityName(), entry.getId()));
		}
	}

	@Override
	public void onMerge(MergeEvent event) {
		collectMerged(event);
	}

	@Override
	public void onMerge(MergeEvent event, MergeContext copiedAlready) {
		collectMerged(event);
	}

	private void collectMerged(MergeEvent event) {
		Object original = event.getOriginal();
		if (original != event.getResult() && Hibernate.isInitialized(original)
				&& original instanceof OutboxEventSource source && !source.pendingOutboxEvents().isEmpty()) {
			SharedSessionContractImplementor session = event.getSession();
			Object id = (event.getResult() != null) ? session.getContextEntityIdentifier(event.getResult()) : null;
			String entityName = Hibernate.getClass(original).getName();
			this.outbox.get().collect(session, source, describe(entityName, id), orderingKey(entityName, id));
		}
	}

	// The default ordering key: without an id, none (the type alone would order every new entity).
	static @Nullable String orderingKey(String entityName, @Nullable Object id) {
		return (id != null) ? entityName + "#" + id : null;
	}

	static String describe(String entityName, @Nullable Object id) {
		return (id != null) ? entityName + "#" + id : entityName;
	}

}
