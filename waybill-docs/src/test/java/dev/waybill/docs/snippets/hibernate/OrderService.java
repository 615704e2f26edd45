package dev.waybill.docs.snippets.hibernate;

import java.util.UUID;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;

@MessageType("billing.charge-card")
record ChargeCard(UUID orderId) {}

// tag::service[]
@Service
class OrderService {
  private final OrderRepository orders;
  private final OutboxPublisher publisher;

  OrderService(OrderRepository orders, OutboxPublisher publisher) {
    this.orders = orders;
    this.publisher = publisher;
  }

  @Outbox
  public UUID place(long totalCents) {
    Order order = orders.save(Order.place(totalCents));           // OrderPlaced goes with this row
    publisher.send("billing-commands", new ChargeCard(order.id())); // same transaction; its own scope (the entity's events are keyed)
    return order.id();
  }

  @Transactional                                                    // @Outbox not required
  public void ship(UUID id) {
    orders.findById(id).orElseThrow().ship();                       // no save(): flushed at commit
  }
}
// end::service[]
