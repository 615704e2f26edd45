package dev.waybill.samples.orders;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.hibernate.AbstractOutboxAggregate;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentMethod;

/**
 * An order: placed, then paid once the billing service captured its payment. Placing one raises
 * {@link OrderPlaced}, which Waybill's Hibernate integration writes to the outbox in the flush that
 * inserts the order, in the same transaction.
 */
@Entity
@Table(name = "orders", schema = "orders")
public class Order extends AbstractOutboxAggregate {

	/**
	 * Where an order stands.
	 */
	public enum Status {

		/** Placed; its payment is not captured yet. */
		PLACED,

		/** The billing service captured its payment. */
		PAID,

		/** The billing service gave up charging it (its fault event arrived). */
		PAYMENT_FAILED

	}

	@Id
	private UUID id;

	@Column(nullable = false)
	private String customer;

	@Column(name = "total_cents", nullable = false)
	private long totalCents;

	@Enumerated(EnumType.STRING)
	@Column(name = "payment_method", nullable = false)
	private PaymentMethod paymentMethod;

	@Enumerated(EnumType.STRING)
	@Column(nullable = false)
	private Status status;

	@Column(name = "placed_at", nullable = false)
	private Instant placedAt;

	@Column(name = "payment_id")
	private @Nullable UUID paymentId;

	@Column(name = "paid_at")
	private @Nullable Instant paidAt;

	@Version
	private @Nullable Long version;

	protected Order() {
		// for JPA
	}

	private Order(String customer, long totalCents, PaymentMethod paymentMethod, Instant now) {
		this.id = UUID.randomUUID();
		this.customer = customer;
		this.totalCents = totalCents;
		this.paymentMethod = paymentMethod;
		this.status = Status.PLACED;
		this.placedAt = now.truncatedTo(ChronoUnit.MICROS); // what PostgreSQL keeps
		registerEvent(new OrderPlaced(this.id, customer, totalCents, paymentMethod));
	}

	/**
	 * Places an order, raising {@link OrderPlaced}.
	 * @param customer who orders
	 * @param totalCents what it costs, in cents
	 * @param paymentMethod how the customer pays
	 * @param now the current time
	 * @return the new order
	 */
	public static Order place(String customer, long totalCents, PaymentMethod paymentMethod, Instant now) {
		return new Order(customer, totalCents, paymentMethod, now);
	}

	/**
	 * Records the captured payment. Paying a paid order again changes nothing.
	 * @param paymentId the billing service's payment
	 * @param now the current time
	 * @return whether the order was unpaid until now
	 */
	public boolean pay(UUID paymentId, Instant now) {
		if (this.status == Status.PAID) {
			return false;
		}
		this.status = Status.PAID;
		this.paymentId = paymentId;
		this.paidAt = now.truncatedTo(ChronoUnit.MICROS);
		return true;
	}

	/**
	 * Records that billing gave up on the order. Only a placed order changes: a paid one stays paid.
	 * @return whether the order was placed and unpaid until now
	 */
	public boolean paymentFailed() {
		if (this.status != Status.PLACED) {
			return false;
		}
		this.status = Status.PAYMENT_FAILED;
		return true;
	}

	public UUID getId() {
		return this.id;
	}

	public String getCustomer() {
		return this.customer;
	}

	public long getTotalCents() {
		return this.totalCents;
	}

	public PaymentMethod getPaymentMethod() {
		return this.paymentMethod;
	}

	public Status getStatus() {
		return this.status;
	}

	public Instant getPlacedAt() {
		return this.placedAt;
	}

	public @Nullable UUID getPaymentId() {
		return this.paymentId;
	}

	public @Nullable Instant getPaidAt() {
		return this.paidAt;
	}

}
