package dev.waybill.outbox.rabbit;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The error queues ({@code <queue>_error}) of this service's consumer endpoints, for operators:
 * depth, a look at the messages without losing them, redrive back to the consumer's queue through
 * the outbox (transactional, surviving restarts; the consumer's inbox fault is cleared in the same
 * transaction, so the message is handled again as new work), and discard. Every change is audited
 * (a log line and the {@code waybill.admin.actions} meter). A bean in services that have consumers.
 *
 * @since 0.1
 */
public interface ErrorQueues {

	/**
	 * Returns the error queue of each consumer endpoint with its depth, read with a passive declare.
	 * @return one entry per consumer, in registration order
	 * @throws ErrorQueueException when the broker cannot be reached
	 */
	List<ErrorQueueInfo> queues();

	/**
	 * Looks at the first messages of a consumer's error queue and puts them back (a classic queue
	 * at their place, a quorum queue without a delivery limit at its tail; each is marked
	 * redelivered).
	 * @param queue the consumer's queue (or its error queue)
	 * @param max the most messages, 1 to 100
	 * @param previewBytes the most bytes of each body to return, 0 to 65536
	 * @return the messages, in queue order
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses
	 */
	List<ErrorQueueMessage> peek(String queue, int max, int previewBytes);

	/**
	 * Moves messages of a consumer's error queue back to its queue through the outbox, and clears
	 * their inbox faults so the consumer handles them again.
	 * @param queue the consumer's queue (or its error queue)
	 * @param messageIds the ids of the messages to move, or {@literal null} for every message
	 * @param actor who asks, for the audit
	 * @return the ids of the messages moved; a chosen id missing from it was not found (already gone,
	 * or held by another reader of the error queue for longer than the implementation waits)
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses; messages moved before
	 * the failure stay moved, the others stay in the error queue
	 */
	List<String> redrive(String queue, @Nullable Collection<String> messageIds, String actor);

	/**
	 * Drops messages of a consumer's error queue for good.
	 * @param queue the consumer's queue (or its error queue)
	 * @param messageIds the ids of the messages to drop
	 * @param actor who asks, for the audit
	 * @return the ids of the messages dropped; a chosen id missing from it was not found (already gone,
	 * or held by another reader of the error queue for longer than the implementation waits)
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses
	 */
	List<String> discard(String queue, Collection<String> messageIds, String actor);

}
