package dev.waybill.samples.billing;

import java.util.UUID;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentCaptured;
import dev.waybill.samples.messages.PaymentMethod;

/**
 * Bills a placed order: records its payment and publishes {@link PaymentCaptured} through the
 * consumer outbox, all in the inbox transaction, once per message.
 * <p>
 * Two kinds of failure are built in to show the inbox at work: a configurable fraction of orders
 * fail their first delivery (retried with backoff, then billed), and {@link PaymentMethod#BARTER}
 * orders always fail with {@link UnsupportedPaymentException}, which the endpoint never retries:
 * they land in {@code billing.orders_error} after one attempt.
 * <p>
 * It shares the receive endpoint {@value #QUEUE} with {@link CustomerRegisteredHandler}: one queue
 * bound to both types' exchanges, one error queue, one set of settings.
 */
@Component
@Consumer(queue = OrderPlacedHandler.QUEUE, neverRetry = OrderPlacedHandler.UnsupportedPaymentException.class)
public class OrderPlacedHandler implements MessageHandler<OrderPlaced> {

	/** The billing endpoint's queue, also the consumer id in this service's inbox. */
	public static final String QUEUE = "billing.orders";

	/** The error queue, where orders that cannot be billed end. */
	public static final String ERROR_QUEUE = QUEUE + "_error";

	private static final int BUCKETS = 10_000;

	private final Payments payments;

	private final double firstAttemptFailureFraction;

	public OrderPlacedHandler(Payments payments, BillingProperties properties) {
		this.payments = payments;
		this.firstAttemptFailureFraction = properties.firstAttemptFailureFraction();
	}

	@Override
	public void handle(OrderPlaced order, MessageContext context) {
		if (order.paymentMethod() == PaymentMethod.BARTER) {
			throw new UnsupportedPaymentException(order);
		}
		if (context.redeliveryCount() == 0 && failsFirstAttempt(order.orderId(), this.firstAttemptFailureFraction)) {
			throw new IllegalStateException("Simulated failure of the first attempt to bill order " + order.orderId()
					+ " (" + BillingProperties.FAILURE_FRACTION_PROPERTY + "=" + this.firstAttemptFailureFraction + ")");
		}
		this.payments.openAccount(order.customer());
		UUID paymentId = this.payments.capture(order.orderId(), order.customer(), order.totalCents());
		context.publish(new PaymentCaptured(order.orderId(), paymentId, order.totalCents()));
	}

	/**
	 * Tells whether an order's first delivery fails on purpose: the same answer for the same order
	 * every time, for about {@code fraction} of all orders.
	 * @param orderId the order
	 * @param fraction the fraction of orders that fail, 0 to 1
	 * @return whether this one does
	 */
	public static boolean failsFirstAttempt(UUID orderId, double fraction) {
		return Math.floorMod(orderId.hashCode(), BUCKETS) < fraction * BUCKETS;
	}

	/**
	 * An order whose payment method billing cannot handle.
	 */
	public static final class UnsupportedPaymentException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UnsupportedPaymentException(OrderPlaced order) {
			super("Order " + order.orderId() + " is paid by " + order.paymentMethod()
					+ ", which billing does not support");
		}

	}

}
