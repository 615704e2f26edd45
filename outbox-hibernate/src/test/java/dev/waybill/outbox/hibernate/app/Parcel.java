package dev.waybill.outbox.hibernate.app;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;

import dev.waybill.outbox.hibernate.OutboxEventSource;

/** An entity that implements the interface instead of extending the base class. */
@Entity
@Table(name = "parcels")
public class Parcel implements OutboxEventSource {

	@Id
	private UUID id;

	private String label;

	@Transient
	private final List<Object> events = new ArrayList<>();

	protected Parcel() {
	}

	public Parcel(String label) {
		this.id = UUID.randomUUID();
		this.label = label;
		this.events.add(new Events.ParcelLabelled(this.id, label));
	}

	@Override
	public List<Object> pendingOutboxEvents() {
		return List.copyOf(this.events);
	}

	@Override
	public void clearOutboxEvents() {
		this.events.clear();
	}

	@Override
	public String outboxOrderingKey(String defaultKey) {
		return "label:" + this.label;
	}

	public UUID id() {
		return this.id;
	}

}
