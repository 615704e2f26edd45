package dev.waybill.outbox.hibernate.app;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

public final class Events {

	private Events() {
	}

	@MessageType("test.order-placed")
	public record OrderPlaced(UUID orderId, long totalCents) {
	}

	@MessageType("test.order-noted")
	public record OrderNoted(UUID orderId, String text) {
	}

	@MessageType("test.order-shipped")
	public record OrderShipped(UUID orderId) {
	}

	@MessageType("test.order-cancelled")
	public record OrderCancelled(UUID orderId) {
	}

	@MessageType("test.parcel-labelled")
	public record ParcelLabelled(UUID parcelId, String label) {
	}

	@MessageType("test.audit")
	public record Audit(String what) {
	}

}
