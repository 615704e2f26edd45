package dev.waybill.samples.orders;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.samples.messages.PaymentCaptured;

/**
 * Marks an order paid when the billing service captured its payment, once per message.
 */
@Component
@Consumer(queue = PaymentCapturedHandler.QUEUE)
public class PaymentCapturedHandler implements MessageHandler<PaymentCaptured> {

	/** The queue, also the consumer id in this service's inbox. */
	public static final String QUEUE = "orders.payment-captured";

	private final OrderService orders;

	public PaymentCapturedHandler(OrderService orders) {
		this.orders = orders;
	}

	@Override
	public void handle(PaymentCaptured payment, MessageContext context) {
		this.orders.pay(payment);
	}

}
