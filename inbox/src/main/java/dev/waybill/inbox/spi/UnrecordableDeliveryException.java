package dev.waybill.inbox.spi;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;

/**
 * Thrown by {@link InboxProcessor#process(ConsumerRegistration, InboundMessage)} when the database
 * refused, a bounded number of times and for a reason that will not go away, to record anything
 * about a delivery: neither its inbox row nor a fault forwarded through the outbox. Returning such a
 * delivery to its queue would loop forever, so the transport must move it to the consumer's error
 * queue itself, unchanged, with {@link #reason()} in the {@link InboxHeaders#FAULT_REASON} header,
 * and acknowledge it once the broker confirmed that. Nothing about it is in the database.
 *
 * @since 0.1
 */
public final class UnrecordableDeliveryException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String reason;

	/**
	 * Creates the exception.
	 * @param reason why the delivery goes to the error queue, for its {@link InboxHeaders#FAULT_REASON}
	 * @param cause what the database said last
	 */
	public UnrecordableDeliveryException(String reason, Throwable cause) {
		super(reason, cause);
		this.reason = reason;
	}

	/**
	 * Returns why the delivery goes to the error queue.
	 * @return the reason, for the {@link InboxHeaders#FAULT_REASON} header
	 */
	public String reason() {
		return this.reason;
	}

}
