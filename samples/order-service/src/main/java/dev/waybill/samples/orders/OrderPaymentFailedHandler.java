package dev.waybill.samples.orders;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.samples.messages.OrderPlaced;

/**
 * Marks an order whose payment failed: the billing service gave its {@link OrderPlaced} up (a
 * BARTER order, say) and published the fault event ({@code waybill.inbox.faults.publish}), which
 * arrives here through the fault exchange {@code fault:samples.order-placed}, once per message.
 */
@Component
@Consumer(queue = OrderPaymentFailedHandler.QUEUE)
public class OrderPaymentFailedHandler implements MessageHandler<Fault<OrderPlaced>> {

	/** The queue, also the consumer id in this service's inbox. */
	public static final String QUEUE = "orders.order-placed-faults";

	private final OrderService orders;

	public OrderPaymentFailedHandler(OrderService orders) {
		this.orders = orders;
	}

	@Override
	public void handle(Fault<OrderPlaced> fault, MessageContext context) {
		this.orders.paymentFailed(fault.message().orderId());
	}

}
