package dev.waybill.integration.endpoints;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

/**
 * The messages and handlers of the receive endpoint tests; each handler notes what it saw in
 * {@link #seen}, in order.
 */
final class Shop {

	static final String ORDERS_QUEUE = "waybill-test.endpoints.orders";

	static final String EVENTS_QUEUE = "waybill-test.endpoints.events";

	static final String REGION_QUEUE = "waybill-test.endpoints.eu-orders";

	static final String PAYMENTS_QUEUE = "waybill-test.endpoints.payments";

	static final String PLACED = "waybill-test.endpoints.order-placed";

	static final String SHIPPED = "waybill-test.endpoints.order-shipped";

	static final String ORDER_EVENT = "waybill-test.endpoints.order-event";

	static final String CANCELLED = "waybill-test.endpoints.order-cancelled";

	static final String CHARGE = "waybill-test.endpoints.charge";

	static final String REGIONS = "waybill-test.endpoints.regions";

	static final List<String> seen = new CopyOnWriteArrayList<>();

	private Shop() {
	}

	@MessageType(PLACED)
	record OrderPlaced(UUID id) {
	}

	@MessageType(SHIPPED)
	record OrderShipped(UUID id) {
	}

	@MessageType(ORDER_EVENT)
	interface OrderEvent {

		UUID id();

	}

	@MessageType(CANCELLED)
	record OrderCancelled(UUID id, String reason) implements OrderEvent {
	}

	@MessageType(CHARGE)
	record Charge(UUID id, String mode) {
	}

	/** Two handlers, two types, one queue, one message at a time. */
	@Consumer(queue = ORDERS_QUEUE, concurrency = 1)
	static class PlacedHandler implements MessageHandler<OrderPlaced> {

		@Override
		public void handle(OrderPlaced message, MessageContext context) {
			seen.add("placed " + message.id());
		}

	}

	@Consumer(queue = ORDERS_QUEUE)
	static class ShippedHandler implements MessageHandler<OrderShipped> {

		@Override
		public void handle(OrderShipped message, MessageContext context) {
			seen.add("shipped " + message.id());
		}

	}

	/** A handler of an interface: receives every published Waybill subtype. */
	@Consumer(queue = EVENTS_QUEUE)
	static class OrderEventHandler implements MessageHandler<OrderEvent> {

		@Override
		public void handle(OrderEvent message, MessageContext context) {
			seen.add(message.getClass().getSimpleName() + " " + message.id() + " as " + context.messageType());
		}

	}

	/** Consumes a declared topic exchange by pattern, besides its own type's exchange. */
	@Consumer(queue = REGION_QUEUE, bindings = @Consumer.Binding(exchange = REGIONS, routingKey = "orders.eu.*"))
	static class RegionHandler implements MessageHandler<OrderPlaced> {

		@Override
		public void handle(OrderPlaced message, MessageContext context) {
			seen.add("region " + message.id());
		}

	}

	static class CardDeclinedException extends RuntimeException {

		CardDeclinedException(String message) {
			super(message);
		}

	}

	static class AlreadyPaidException extends RuntimeException {

		AlreadyPaidException(String message) {
			super(message);
		}

	}

	/** Its own retry policy and exception filters. */
	@Consumer(queue = PAYMENTS_QUEUE, maxAttempts = 2, retryInterval = "100ms", neverRetry = CardDeclinedException.class,
			ignore = AlreadyPaidException.class)
	static class ChargeHandler implements MessageHandler<Charge> {

		@Override
		public void handle(Charge message, MessageContext context) {
			seen.add("charge " + message.id() + " " + message.mode());
			switch (message.mode()) {
				case "declined" -> throw new CardDeclinedException("card declined for " + message.id());
				case "paid" -> throw new IllegalStateException("wrapped", new AlreadyPaidException("paid already"));
				case "fail" -> throw new IllegalStateException("failing " + message.id());
				default -> {
				}
			}
		}

	}

}
