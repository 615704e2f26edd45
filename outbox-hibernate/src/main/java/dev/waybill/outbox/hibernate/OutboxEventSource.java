package dev.waybill.outbox.hibernate;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * An entity that records domain events for the outbox. Waybill's Hibernate integration reads
 * {@link #pendingOutboxEvents()} of every entity a flush inserts, updates, deletes or finds
 * unchanged, turns each event into an outbox message (published to the exchange of its message
 * type, as {@link dev.waybill.outbox.OutboxPublisher#publish(Object)} would) and then calls
 * {@link #clearOutboxEvents()}, so a second flush in the same transaction writes nothing twice.
 * The messages are written to the outbox in the same transaction as the entity changes, just
 * before it commits; a rollback drops them with the entity changes.
 * <p>
 * Each event is ordered by the entity's type and id: its ordering key (see
 * {@link dev.waybill.outbox.PublishOptions#orderingKey(String)}) is {@code <entity name>#<id>},
 * e.g. {@code com.example.Order#42}, so the events of one entity are relayed in the order their
 * transactions committed and handled one at a time, in that order. Override
 * {@link #outboxOrderingKey(String)} to choose another key (e.g. the id of the aggregate an
 * entity belongs to) or none.
 * <p>
 * Extend {@link AbstractOutboxAggregate} to get this for free; implement it directly when the
 * entity already extends another class. Keep the events in a {@code @Transient} field.
 *
 * @since 0.1
 */
public interface OutboxEventSource {

	/**
	 * Returns the events recorded since they were last cleared, in the order they were recorded.
	 * @return the events, never {@literal null}, empty when there are none
	 */
	List<Object> pendingOutboxEvents();

	/**
	 * Forgets the recorded events: called once they are in the transaction's outbox.
	 */
	void clearOutboxEvents();

	/**
	 * Returns the ordering key of this entity's events.
	 * @param defaultKey {@code <entity name>#<id>}, or {@literal null} when Hibernate knows no id yet
	 * @return the key, {@code defaultKey} unless overridden; {@literal null} for unordered events
	 * @since 0.1
	 */
	default @Nullable String outboxOrderingKey(@Nullable String defaultKey) {
		return defaultKey;
	}

}
