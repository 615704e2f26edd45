package dev.waybill.outbox.spi;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

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
		return this.messages.stream()
			.map(OutboxMessage::notBefore)
			.filter(Objects::nonNull)
			.max(Instant::compareTo)
			.orElse(null);
	}

}
