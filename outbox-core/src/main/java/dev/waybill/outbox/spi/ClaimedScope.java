package dev.waybill.outbox.spi;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A scope a relay has claimed: while {@code leaseUntil} has not passed, no other claimer gets it.
 *
 * @param id the scope id
 * @param createdAt when the scope was written, just before its transaction committed
 * @param attempts delivery attempts so far, this claim included
 * @param leaseOwner the claimer that holds the lease; settling the scope requires it
 * @param leaseUntil when the lease expires and the scope becomes claimable again
 * @param messages the scope's messages in publish order (empty only if rows were removed by hand)
 * @since 0.1
 */
public record ClaimedScope(UUID id, Instant createdAt, int attempts, String leaseOwner, Instant leaseUntil, List<OutboxMessage> messages) {

	/**
	 * Copies the message list.
	 */
	public ClaimedScope {
		messages = List.copyOf(messages);
	}

}
