package dev.waybill.outbox.hibernate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import jakarta.persistence.MappedSuperclass;
import jakarta.persistence.Transient;

/**
 * Base class for JPA entities that raise domain events through the outbox:
 * <pre>{@code
 * @Entity
 * class Order extends AbstractOutboxAggregate {
 *   void ship() {
 *     this.status = Status.SHIPPED;
 *     registerEvent(new OrderShipped(this.id));
 *   }
 * }
 * }</pre>
 * The events are written to the outbox by the Hibernate flush that writes the entity, in the same
 * transaction, and are then cleared (see {@link OutboxEventSource}). The method has the name of
 * Spring Data's {@code AbstractAggregateRoot.registerEvent} on purpose, but the events go to the
 * outbox, not to the application's in-process event publisher.
 *
 * @since 0.1
 */
@MappedSuperclass
public abstract class AbstractOutboxAggregate implements OutboxEventSource {

	@Transient
	private transient List<Object> outboxEvents = new ArrayList<>();

	/**
	 * Records an event to publish when this entity is next flushed.
	 * @param <E> the event type
	 * @param event the event, must not be {@literal null}
	 * @return the event, for chaining
	 */
	protected <E> E registerEvent(E event) {
		Objects.requireNonNull(event, () -> "The event registered on " + getClass().getName() + " must not be null");
		events().add(event);
		return event;
	}

	@Override
	public List<Object> pendingOutboxEvents() {
		return Collections.unmodifiableList(events());
	}

	@Override
	public void clearOutboxEvents() {
		events().clear();
	}

	// Deserialization (e.g. from a cache) bypasses the field initializer.
	private List<Object> events() {
		if (this.outboxEvents == null) {
			this.outboxEvents = new ArrayList<>();
		}
		return this.outboxEvents;
	}

}
