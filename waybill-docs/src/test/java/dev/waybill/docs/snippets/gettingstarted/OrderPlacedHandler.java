package dev.waybill.docs.snippets.gettingstarted;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;

// tag::consumer[]
@Component
@Consumer(queue = "billing.charges")
public class OrderPlacedHandler implements MessageHandler<OrderPlaced> {
  private final JdbcTemplate jdbc;

  public OrderPlacedHandler(JdbcTemplate jdbc) { this.jdbc = jdbc; }

  @Override
  public void handle(OrderPlaced event, MessageContext context) {
    jdbc.update("INSERT INTO payments (order_id, cents) VALUES (?, ?)", event.orderId(), event.totalCents());
  }
}
// end::consumer[]
