package dev.waybill.inbox.spi;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;

/**
 * What a transport's receive endpoint hands its deliveries to: the inbox records each delivery in
 * {@code inbox_state}, runs the consumer's handler once per message and consumer, and tells the
 * endpoint whether to acknowledge it, move it to the error queue itself, or return it to the queue.
 *
 * @since 0.1
 */
public interface DeliveryProcessor {

	/**
	 * Handles one delivery in a transaction of its own.
	 * @param consumer the consumer of the queue the message arrived on
	 * @param message the delivery
	 * @return what was committed; acknowledge the delivery
	 * @throws UnrecordableDeliveryException when the database refuses to record anything about the
	 * delivery (move it to the error queue with the exception's reason, then acknowledge it)
	 * @throws RuntimeException when the database is unavailable (nothing was recorded; reject the
	 * delivery with requeue)
	 */
	InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message);

	/**
	 * Handles deliveries of one queue together, in as few transactions as their outcomes allow;
	 * see {@link #whyNotBatched()} for when each runs alone.
	 * @param deliveries the deliveries, in the order they were received
	 * @return what happened to each, at the same index
	 */
	List<DeliveryResult> processBatch(List<InboxDelivery> deliveries);

	/**
	 * Tells why {@link #processBatch} handles each delivery in a transaction of its own, if it does.
	 * @return the reason, or {@code null} when deliveries are batched
	 */
	@Nullable String whyNotBatched();

	/**
	 * Tells whether a consumer received a message before: the inbox has its row, in whatever state.
	 * A receive endpoint asks it for the predecessor of a keyed delivery that arrived without it.
	 * @param consumer the consumer
	 * @param messageId the message id; an id that is not a UUID was never recorded
	 * @return whether the consumer has a row of the message
	 * @throws RuntimeException when the database is unavailable
	 */
	boolean received(ConsumerRegistration<?> consumer, String messageId);

	/**
	 * Tells the inbox's listeners (and meters) that a keyed delivery is about to be handled without
	 * its predecessor, which it overtook at the broker and which did not arrive in time.
	 * @param consumer the consumer
	 * @param message the delivery
	 * @param previous the message id of its missing predecessor
	 */
	void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous);

	/**
	 * Tells the processor which message types the consumers of each queue handle, so that a fault
	 * for a type none of them handles names them all. The receive endpoint calls it with its
	 * consumers before its first delivery.
	 * @param consumers the consumers by queue
	 */
	void describeQueues(ConsumerRegistry consumers);

}
