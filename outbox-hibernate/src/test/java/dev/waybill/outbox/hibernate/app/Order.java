package dev.waybill.outbox.hibernate.app;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import dev.waybill.outbox.hibernate.AbstractOutboxAggregate;

@Entity
@Table(name = "orders")
public class Order extends AbstractOutboxAggregate {

	@Id
	private UUID id;

	private String customer;

	private long totalCents;

	private String status;

	@Version
	private Long version;

	protected Order() {
	}

	public static Order place(String customer, long totalCents) {
		Order order = new Order();
		order.id = UUID.randomUUID();
		order.customer = customer;
		order.totalCents = totalCents;
		order.status = "PLACED";
		order.registerEvent(new Events.OrderPlaced(order.id, totalCents));
		return order;
	}

	public void note(String text) {
		registerEvent(new Events.OrderNoted(this.id, text));
	}

	public void ship() {
		this.status = "SHIPPED";
		registerEvent(new Events.OrderShipped(this.id));
	}

	public void cancel() {
		registerEvent(new Events.OrderCancelled(this.id));
	}

	public UUID id() {
		return this.id;
	}

	public String status() {
		return this.status;
	}

}
