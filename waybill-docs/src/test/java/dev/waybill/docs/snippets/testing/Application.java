package dev.waybill.docs.snippets.testing;

import java.util.UUID;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

// The application the page's tests exercise, reduced to the types they name.
@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("billing.card-charged")
record CardCharged(UUID orderId) {}

interface OrderService {
  UUID place(String customer, long totalCents);
}

class ChargeCardHandler implements MessageHandler<OrderPlaced> {
  @Override
  public void handle(OrderPlaced event, MessageContext context) {
    context.publish(new CardCharged(event.orderId()));
  }
}

class ReceiptHandler implements MessageHandler<CardCharged> {
  @Override
  public void handle(CardCharged event, MessageContext context) {
  }
}
