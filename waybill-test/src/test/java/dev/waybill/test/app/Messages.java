package dev.waybill.test.app;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

/**
 * The test application's messages; their type names (and so their exchanges) are the harness
 * tests' own.
 */
public final class Messages {

	private Messages() {
	}

	@MessageType("waybill-test-harness.order-placed")
	public record OrderPlaced(UUID orderId, long cents) {
	}

	@MessageType("waybill-test-harness.card-charged")
	public record CardCharged(UUID orderId, long cents) {
	}

	@MessageType("waybill-test-harness.ship-order")
	public record ShipOrder(UUID orderId) {
	}

}
