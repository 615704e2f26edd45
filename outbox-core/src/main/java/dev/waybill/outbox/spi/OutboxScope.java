package dev.waybill.outbox.spi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.TimeOrderedUuids;

/**
 * The messages one transaction published, in publish order: one {@code outbox_state} row and its
 * {@code outbox_message} rows. The relay delivers a scope as a unit, in order, and marks it
 * published only when every message is confirmed.
 *
 * @param id the scope id
 * @param messages the messages in publish order, never empty
 * @param inboundMessageId for a consumer outbox, the id of the message being handled, else {@literal null}
 * @param consumerId for a consumer outbox, the consumer handling it, else {@literal null}
 * @since 0.1
 */
public record OutboxScope(UUID id, List<OutboxMessage> messages, @Nullable UUID inboundMessageId,
		@Nullable String consumerId) {

	/**
	 * Checks the components and copies the message list.
	 */
	public OutboxScope {
		Objects.requireNonNull(id, "id must not be null");
		messages = List.copyOf(messages);
		if (messages.isEmpty()) {
			throw new IllegalArgumentException("An outbox scope needs at least one message");
		}
		if ((inboundMessageId == null) != (consumerId == null)) {
			throw new IllegalArgumentException("inboundMessageId and consumerId must be given together");
		}
	}

	/**
	 * Returns when the relay may first deliver this scope: the latest not-before time of its
	 * messages, since a scope is delivered as a unit and in order.
	 * @return the earliest delivery time, or {@literal null} for "as soon as committed"
	 */
	public @Nullable Instant notBefore() {
		Instant latest = null;
		for (OutboxMessage message : this.messages) {
			Instant notBefore = message.notBefore();
			if (notBefore != null && (latest == null || notBefore.isAfter(latest))) {
				latest = notBefore;
			}
		}
		return latest;
	}

	/**
	 * Returns the ordering key of this scope's messages (see
	 * {@link dev.waybill.outbox.PublishOptions#orderingKey(String)}).
	 * @return the key all its messages share, or {@literal null} when none has one
	 * @throws IllegalStateException when its messages carry different keys or only some carry one;
	 * {@link #perOrderingKey()} splits such a scope
	 * @since 0.1
	 */
	public @Nullable String orderingKey() {
		String key = this.messages.get(0).orderingKey();
		for (OutboxMessage message : this.messages) {
			if (!Objects.equals(key, message.orderingKey())) {
				throw new IllegalStateException("The messages of scope " + this.id + " carry different ordering keys");
			}
		}
		return key;
	}

	/**
	 * Splits this scope into one scope per ordering key, since the relay orders scopes by their
	 * key: the messages without a key form one scope, those of each key another, each in publish
	 * order, in the order each key first appears. The first part keeps this scope's id, the others
	 * get new ones; all keep the inbound message this scope belongs to.
	 * @return this scope alone when its messages share one key or none has one, else its parts
	 * @since 0.1
	 */
	public List<OutboxScope> perOrderingKey() {
		if (sharesOneKey()) {
			return List.of(this);
		}
		Map<@Nullable String, List<OutboxMessage>> parts = new LinkedHashMap<>();
		for (OutboxMessage message : this.messages) {
			parts.computeIfAbsent(message.orderingKey(), (key) -> new ArrayList<>()).add(message);
		}
		if (parts.size() == 1) {
			return List.of(this);
		}
		List<OutboxScope> scopes = new ArrayList<>(parts.size());
		for (List<OutboxMessage> part : parts.values()) {
			UUID partId = scopes.isEmpty() ? this.id : TimeOrderedUuids.next();
			scopes.add(new OutboxScope(partId, part, this.inboundMessageId, this.consumerId));
		}
		return scopes;
	}

	private boolean sharesOneKey() {
		String key = this.messages.get(0).orderingKey();
		for (OutboxMessage message : this.messages) {
			if (!Objects.equals(key, message.orderingKey())) {
				return false;
			}
		}
		return true;
	}

}
