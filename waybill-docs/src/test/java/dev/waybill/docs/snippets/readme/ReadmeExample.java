package dev.waybill.docs.snippets.readme;

import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;

// The README's example: a producer and a consumer of one event.
// tag::example[]
@MessageType("orders.order-placed")          // the contract name, and the exchange it goes to
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("billing.payment-captured")
record PaymentCaptured(UUID orderId) {}

@Service
class OrderService {
  private final JdbcTemplate jdbc;
  private final OutboxPublisher publisher;

  OrderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
    this.jdbc = jdbc;
    this.publisher = publisher;
  }

  @Outbox                                     // one transaction: the order row and the message
  public UUID place(long totalCents) {
    UUID id = UUID.randomUUID();
    jdbc.update("INSERT INTO orders (id, total_cents) VALUES (?, ?)", id, totalCents);
    publisher.publish(new OrderPlaced(id, totalCents));
    return id;
  }
}

@Component
@Consumer(queue = "billing.charges")          // the queue, bound to the exchange of OrderPlaced
class OrderPlacedHandler implements MessageHandler<OrderPlaced> {
  private final JdbcTemplate jdbc;

  OrderPlacedHandler(JdbcTemplate jdbc) { this.jdbc = jdbc; }

  @Override
  public void handle(OrderPlaced event, MessageContext context) {
    jdbc.update("INSERT INTO payments (order_id, cents) VALUES (?, ?)", event.orderId(), event.totalCents());
    context.publish(new PaymentCaptured(event.orderId()));   // sent only if this commits
  }
}
// end::example[]
