package dev.waybill.docs.snippets.producing;

import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;

@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("billing.charge-card")
record ChargeCard(UUID orderId) {}

class Producing {
  private final JdbcTemplate jdbc;
  private final OutboxPublisher publisher;

  Producing(JdbcTemplate jdbc, OutboxPublisher publisher) {
    this.jdbc = jdbc;
    this.publisher = publisher;
  }

  // tag::place[]
  @Outbox
  public UUID place(String customer, long totalCents) {
    UUID id = UUID.randomUUID();
    jdbc.update("INSERT INTO orders (id, customer, total_cents) VALUES (?, ?, ?)", id, customer, totalCents);
    publisher.publish(new OrderPlaced(id, totalCents));               // to the exchange of its type
    publisher.send("billing-commands", new ChargeCard(id), o -> o.header("tenant", "acme"));
    return id;
  }
  // end::place[]
}
