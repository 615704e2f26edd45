package dev.waybill.samples.orders;

import java.net.URI;
import java.time.Instant;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.waybill.samples.messages.PaymentMethod;

/**
 * The HTTP API: {@code POST /orders} places an order, {@code GET /orders/{id}} shows it. Bad input
 * is answered 400 with a problem detail naming the field (see {@link ApiErrors}).
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final OrderService orders;

	public OrderController(OrderService orders) {
		this.orders = orders;
	}

	@PostMapping
	public ResponseEntity<OrderView> place(@Valid @RequestBody PlaceOrder request) {
		Order order = this.orders.place(request.customer().strip(), request.totalCents(), request.paymentMethod());
		return ResponseEntity.created(URI.create("/orders/" + order.getId())).body(OrderView.of(order));
	}

	@GetMapping("/{id}")
	public ResponseEntity<OrderView> find(@PathVariable UUID id) {
		return ResponseEntity.of(this.orders.find(id).map(OrderView::of));
	}

	/**
	 * The body of {@code POST /orders}.
	 *
	 * @param customer who orders, 1 to 100 characters
	 * @param totalCents what it costs, in cents, at least 1
	 * @param paymentMethod how the customer pays
	 */
	public record PlaceOrder(@NotBlank @Size(max = 100) String customer, @NotNull @Positive Long totalCents,
			@NotNull PaymentMethod paymentMethod) {
	}

	/**
	 * An order as the API shows it.
	 *
	 * @param id the order id
	 * @param customer who ordered
	 * @param totalCents what it costs, in cents
	 * @param paymentMethod how the customer pays
	 * @param status placed or paid
	 * @param placedAt when it was placed
	 * @param paymentId the billing service's payment, once paid
	 * @param paidAt when the payment was recorded, once paid
	 */
	public record OrderView(UUID id, String customer, long totalCents, PaymentMethod paymentMethod,
			Order.Status status, Instant placedAt, @Nullable UUID paymentId, @Nullable Instant paidAt) {

		static OrderView of(Order order) {
			return new OrderView(order.getId(), order.getCustomer(), order.getTotalCents(), order.getPaymentMethod(),
					order.getStatus(), order.getPlacedAt(), order.getPaymentId(), order.getPaidAt());
		}

	}

}
