package dev.waybill.console;

import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The consumer side as the console sees it: the inbox lookup and the error queues. Its types are
 * plain so the endpoint loads in applications without the inbox or the RabbitMQ transport.
 *
 * @since 0.1
 */
public interface ConsumerSide {

	/**
	 * Returns what each consumer did with a message, in a store's inbox.
	 * @param messageId the message id
	 * @param store the store's name
	 * @return the inbox entries ({@code dev.waybill.inbox.InboxEntry})
	 * @throws dev.waybill.outbox.store.UnknownStoreException when no store of that name is registered
	 */
	List<?> lookup(UUID messageId, String store);

	/**
	 * Returns every consumer's error queue with its depth.
	 * @return the queues ({@code dev.waybill.outbox.rabbit.ErrorQueueInfo})
	 */
	List<?> errorQueues();

	/**
	 * Looks at the first messages of an error queue without taking them.
	 * @param queue the consumer's queue
	 * @param max the most messages
	 * @param previewBytes the most body bytes per message
	 * @return the messages ({@code dev.waybill.outbox.rabbit.ErrorQueueMessage})
	 */
	List<?> peek(String queue, int max, int previewBytes);

	/**
	 * Moves error-queue messages back to their queue through the outbox.
	 * @param queue the consumer's queue
	 * @param messageIds the ids, or {@literal null} for all
	 * @param actor who asks
	 * @return the ids moved
	 */
	List<String> redrive(String queue, @Nullable List<String> messageIds, String actor);

	/**
	 * Drops error-queue messages.
	 * @param queue the consumer's queue
	 * @param messageIds the ids
	 * @param actor who asks
	 * @return the ids dropped
	 */
	List<String> discard(String queue, List<String> messageIds, String actor);

}
