package dev.waybill.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One outbox scope as an operator lists it.
 *
 * @param id the scope id
 * @param status pending or dead
 * @param createdAt when the scope was written
 * @param age how old it is, on the database clock
 * @param attempts the delivery attempts so far
 * @param nextAttemptAt when a pending scope is due next (for a dead one: when it was due last)
 * @param lastError the last delivery error, or {@literal null}
 * @param messageCount how many messages the scope holds
 * @param destinations its messages' destinations (exchanges), distinct, the default exchange as {@code ""}
 * @param routingKeys its messages' routing keys, distinct
 * @param messageTypes its messages' types, distinct
 * @param consumerId for a consumer outbox, the consumer that wrote it, else {@literal null}
 * @param inboundMessageId for a consumer outbox, the message it handled, else {@literal null}
 * @since 0.1
 */
public record ScopeSummary(UUID id, ScopeStatus status, Instant createdAt, Duration age, int attempts,
		Instant nextAttemptAt, @Nullable String lastError, int messageCount, List<String> destinations,
		List<String> routingKeys, List<String> messageTypes, @Nullable String consumerId,
		@Nullable UUID inboundMessageId) {

	/**
	 * Copies the lists.
	 */
	public ScopeSummary {
		destinations = List.copyOf(destinations);
		routingKeys = List.copyOf(routingKeys);
		messageTypes = List.copyOf(messageTypes);
	}

}
