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

	/**
	 * Tells whether this consumer outbox can write, or drop, what the current transaction
	 * published for each inbound message while the transaction goes on
	 * ({@link #writeInboundNow()}, {@link #discardInbound()}): an inbox needs that to handle
	 * several deliveries in one transaction. The default publisher's can; by default, none can.
	 * @return whether several inbound messages can share a transaction
	 * @since 0.1
	 */
	default boolean writesInboundNow() {
		return false;
	}

	/**
	 * Writes what the current transaction published for the inbound message bound last, as its
	 * scope, now, and forgets the binding; for an inbox that runs several handlers in one
	 * transaction.
	 * @throws IllegalStateException when no read-write transaction is active
	 * @throws UnsupportedOperationException when {@link #writesInboundNow()} is {@literal false}
	 * @since 0.1
	 */
	default void writeInboundNow() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot write an inbound message's scope now");
	}

	/**
	 * Drops what the current transaction published for the inbound message bound last, and the
	 * binding: its handler failed, and the transaction rolls back.
	 * @throws IllegalStateException when no read-write transaction is active
	 * @throws UnsupportedOperationException when {@link #writesInboundNow()} is {@literal false}
	 * @since 0.1
	 */
	default void discardInbound() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot drop an inbound message's scope");
	}

}
