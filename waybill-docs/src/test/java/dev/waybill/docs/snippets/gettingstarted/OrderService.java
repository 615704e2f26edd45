package dev.waybill.docs.snippets.gettingstarted;

import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;

// tag::producer[]
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final OutboxPublisher publisher;

  public OrderService(JdbcTemplate jdbc, OutboxPublisher publisher) {
    this.jdbc = jdbc;
    this.publisher = publisher;
  }

  @Outbox
  public UUID place(long totalCents) {
    UUID id = UUID.randomUUID();
    jdbc.update("INSERT INTO orders (id, total_cents) VALUES (?, ?)", id, totalCents);
    publisher.publish(new OrderPlaced(id, totalCents));
    return id;
  }
}
// end::producer[]
