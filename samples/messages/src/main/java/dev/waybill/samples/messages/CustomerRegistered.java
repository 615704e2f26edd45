package dev.waybill.samples.messages;

import java.util.Objects;

import dev.waybill.outbox.MessageType;

/**
 * A customer placed a first order: the order service publishes it, the billing service opens the
 * customer's account. Published at most once per customer in effect; a repeat is harmless.
 *
 * @param customer the customer's name
 */
@MessageType(CustomerRegistered.TYPE)
public record CustomerRegistered(String customer) {

	/** The message type, also the exchange it is published to. */
	public static final String TYPE = "samples.customer-registered";

	public CustomerRegistered {
		Objects.requireNonNull(customer, "customer must not be null");
	}

}
