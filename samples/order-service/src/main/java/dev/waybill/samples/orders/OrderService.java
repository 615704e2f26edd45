package dev.waybill.samples.orders;

import java.time.Clock;
import java.util.Optional;
import java.util.UUID;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.samples.messages.CustomerRegistered;
import dev.waybill.samples.messages.PaymentCaptured;
import dev.waybill.samples.messages.PaymentMethod;

/**
 * Places and pays orders.
 */
@Service
public class OrderService {

	private final OrderRepository orders;

	private final OutboxPublisher publisher;

	private final Clock clock;

	public OrderService(OrderRepository orders, OutboxPublisher publisher) {
		this.orders = orders;
		this.publisher = publisher;
		this.clock = Clock.systemUTC();
	}

	/**
	 * Places an order. One transaction writes the order row, the {@code OrderPlaced} event the order
	 * raised (written by the Hibernate flush) and, on a customer's first order,
	 * {@code CustomerRegistered} (published here); a failure leaves none of them.
	 * @param customer who orders
	 * @param totalCents what it costs, in cents
	 * @param paymentMethod how the customer pays
	 * @return the order
	 */
	@Outbox
	public Order place(String customer, long totalCents, PaymentMethod paymentMethod) {
		if (!this.orders.existsByCustomer(customer)) {
			this.publisher.publish(new CustomerRegistered(customer));
		}
		return this.orders.save(Order.place(customer, totalCents, paymentMethod, this.clock.instant()));
	}

	/**
	 * Records a captured payment on its order.
	 * @param payment the billing service's event
	 * @return whether the order was unpaid until now
	 * @throws IllegalStateException when the order does not exist
	 */
	@Transactional
	public boolean pay(PaymentCaptured payment) {
		Order order = this.orders.findById(payment.orderId())
			.orElseThrow(() -> new IllegalStateException("Payment " + payment.paymentId() + " is for order "
					+ payment.orderId() + ", which does not exist"));
		return order.pay(payment.paymentId(), this.clock.instant());
	}

	/**
	 * Marks an order whose payment the billing service gave up on.
	 * @param orderId the order
	 * @return whether it was placed and unpaid until now
	 * @throws IllegalStateException when the order does not exist
	 */
	@Transactional
	public boolean paymentFailed(UUID orderId) {
		Order order = this.orders.findById(orderId)
			.orElseThrow(() -> new IllegalStateException("Billing gave up on order " + orderId
					+ ", which does not exist"));
		return order.paymentFailed();
	}

	/**
	 * Finds an order.
	 * @param id the order id
	 * @return the order, or empty when there is none
	 */
	@Transactional(readOnly = true)
	public Optional<Order> find(UUID id) {
		return this.orders.findById(id);
	}

}
