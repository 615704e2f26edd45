package dev.waybill.outbox.hibernate.app;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.persistence.EntityManager;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;

@Service
public class OrderService {

	private final OrderRepository orders;

	private final ParcelRepository parcels;

	private final OutboxPublisher publisher;

	private final EntityManager entityManager;

	public OrderService(OrderRepository orders, ParcelRepository parcels, OutboxPublisher publisher,
			EntityManager entityManager) {
		this.orders = orders;
		this.parcels = parcels;
		this.publisher = publisher;
		this.entityManager = entityManager;
	}

	@Outbox
	public Order place(String customer, String note) {
		Order order = Order.place(customer, 1200);
		order.note(note);
		return this.orders.save(order);
	}

	@Outbox
	public Order placeThenFail(String customer) {
		this.orders.save(Order.place(customer, 1));
		throw new IllegalStateException("payment declined");
	}

	/** No @Outbox and no save(): the managed entity is flushed at commit. */
	@Transactional
	public void ship(UUID id) {
		this.orders.findById(id).orElseThrow().ship();
	}

	@Outbox
	public void cancel(UUID id) {
		Order order = this.orders.findById(id).orElseThrow();
		order.cancel();
		this.orders.delete(order);
	}

	@Outbox
	public Order placeFlushingTwice(String customer) {
		Order order = this.orders.save(Order.place(customer, 5));
		this.entityManager.flush();
		this.entityManager.flush();
		order.note("after two flushes");
		this.entityManager.flush();
		return order;
	}

	@Outbox
	public Order placeBetweenPublishes(String customer) {
		this.publisher.publish(new Events.Audit("before"));
		Order order = this.orders.save(Order.place(customer, 7));
		this.publisher.publish(new Events.Audit("after"));
		return order;
	}

	@Outbox
	public List<UUID> placeMany(int count) {
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(this.orders.save(Order.place("customer-" + i, i)).id());
		}
		return ids;
	}

	@Outbox
	public Order save(Order order) {
		return this.orders.save(order);
	}

	/** Publishes without an entity, in a JPA transaction: the scope is written at Hibernate's before-completion. */
	@Outbox
	public void audit(String what) {
		this.publisher.publish(new Events.Audit(what));
	}

	@Outbox
	public Parcel label(String label) {
		return this.parcels.save(new Parcel(label));
	}

}
