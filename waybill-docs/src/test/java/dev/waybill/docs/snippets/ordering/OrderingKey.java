package dev.waybill.docs.snippets.ordering;

import java.util.UUID;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;

@MessageType("orders.order-shipped")
record OrderShipped(UUID orderId) {}

record Order(UUID id) {}

class OrderingKey {

  void ship(OutboxPublisher publisher, Order order) {
    // tag::key[]
    publisher.publish(new OrderShipped(order.id()), o -> o.orderingKey("Order#" + order.id()));
    // end::key[]
  }

}
