package dev.waybill.samples.messages;

import java.util.Objects;
import java.util.UUID;

import dev.waybill.outbox.MessageType;

/**
 * An order was placed: the order service raises it, the billing service charges it.
 *
 * @param orderId the order
 * @param customer who placed it
 * @param totalCents what it costs, in cents
 * @param paymentMethod how the customer pays
 */
@MessageType(OrderPlaced.TYPE)
public record OrderPlaced(UUID orderId, String customer, long totalCents, PaymentMethod paymentMethod) {

	/** The message type, also the exchange it is published to. */
	public static final String TYPE = "samples.order-placed";

	public OrderPlaced {
		Objects.requireNonNull(orderId, "orderId must not be null");
		Objects.requireNonNull(customer, "customer must not be null");
		Objects.requireNonNull(paymentMethod, "paymentMethod must not be null");
	}

}
