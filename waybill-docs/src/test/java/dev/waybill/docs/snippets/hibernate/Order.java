package dev.waybill.docs.snippets.hibernate;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.hibernate.AbstractOutboxAggregate;

// tag::entity[]
@Entity
@Table(name = "orders")
public class Order extends AbstractOutboxAggregate {     // dev.waybill.outbox.hibernate
  @Id private UUID id;
  private long totalCents;
  private String status;
  @Version private Long version;

  protected Order() {}

  public static Order place(long totalCents) {
    Order order = new Order();
    order.id = UUID.randomUUID();
    order.totalCents = totalCents;
    order.status = "PLACED";
    order.registerEvent(new OrderPlaced(order.id, totalCents));   // kept in a @Transient list
    return order;
  }

  public void ship() {
    status = "SHIPPED";
    registerEvent(new OrderShipped(id));
  }

  public UUID id() { return id; }
}
// end::entity[]

@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("orders.order-shipped")
record OrderShipped(UUID orderId) {}
