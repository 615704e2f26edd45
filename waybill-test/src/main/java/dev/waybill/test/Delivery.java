package dev.waybill.test;

import java.util.UUID;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;

/**
 * A message a test delivered to one of the application's handlers with
 * {@link WaybillTestHarness#deliver}, and what the inbox committed for it. {@link #redeliver()}
 * delivers the very same message again, as a broker does after a lost acknowledgement.
 *
 * @since 0.1
 */
public final class Delivery {

	private final TestDeliveries deliveries;

	private final ConsumerRegistration<?> consumer;

	private final InboundMessage message;

	private final InboxOutcome outcome;

	Delivery(TestDeliveries deliveries, ConsumerRegistration<?> consumer, InboundMessage message,
			InboxOutcome outcome) {
		this.deliveries = deliveries;
		this.consumer = consumer;
		this.message = message;
		this.outcome = outcome;
	}

	/**
	 * Returns what the inbox committed for this delivery.
	 * @return the outcome
	 */
	public InboxOutcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns the id of the delivered message.
	 * @return the message id
	 */
	public UUID messageId() {
		return UUID.fromString(this.message.messageId());
	}

	/**
	 * Returns the queue (and consumer id) the message was delivered on.
	 * @return the queue name
	 */
	public String queue() {
		return this.consumer.queue();
	}

	/**
	 * Delivers the same message (id, body, headers) to the same handler again, through the inbox in
	 * a transaction of its own; a message the handler processed already comes back
	 * {@link InboxOutcome#DUPLICATE} without calling the handler.
	 * @return the new delivery
	 */
	public Delivery redeliver() {
		return this.deliveries.deliver(this.consumer, this.message);
	}

	InboundMessage message() {
		return this.message;
	}

	@Override
	public String toString() {
		return "Delivery[" + this.message.messageType() + " " + this.message.messageId() + " to '"
				+ this.consumer.queue() + "': " + this.outcome + "]";
	}

}
