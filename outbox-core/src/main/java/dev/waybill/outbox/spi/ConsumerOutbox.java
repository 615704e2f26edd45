package dev.waybill.outbox.spi;

import java.util.UUID;

/**
 * Ties what the current transaction publishes to the inbound message it handles: the scope is
 * written with that message's id and the consumer's id, so retention can tell when both sides
 * are complete. Implemented by the default publisher; used by the inbox.
 *
 * @since 0.1
 */
public interface ConsumerOutbox {

	/**
	 * Marks the current transaction's outbox scope as the consumer outbox of an inbound message.
	 * Call inside the handling transaction, before or after publishing.
	 * @param inboundMessageId the id of the message being handled
	 * @param consumerId the consumer handling it
	 * @throws IllegalStateException when no read-write transaction is active
	 */
	void bindInbound(UUID inboundMessageId, String consumerId);

}
