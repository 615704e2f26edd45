package dev.waybill.samples.messages;

import java.util.Objects;
import java.util.UUID;

import dev.waybill.outbox.MessageType;

/**
 * The billing service captured an order's payment: published from its consumer outbox, so only
 * when the payment row committed.
 *
 * @param orderId the order paid for
 * @param paymentId the payment recorded for it
 * @param amountCents the amount captured, in cents
 */
@MessageType(PaymentCaptured.TYPE)
public record PaymentCaptured(UUID orderId, UUID paymentId, long amountCents) {

	/** The message type, also the exchange it is published to. */
	public static final String TYPE = "samples.payment-captured";

	public PaymentCaptured {
		Objects.requireNonNull(orderId, "orderId must not be null");
		Objects.requireNonNull(paymentId, "paymentId must not be null");
	}

}
