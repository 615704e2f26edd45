package dev.waybill.docs.snippets.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.ScheduledMessage;

@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId) {}

@MessageType("orders.payment-reminder")
record PaymentReminder(UUID orderId) {}

interface Order {
  UUID id();
  void setReminderId(UUID reminderId);
  UUID getReminderId();
  void markPaid();
}

interface Orders {
  void save(Order order);
}

class Reminders {
  private final Orders orders;
  private final OutboxPublisher publisher;

  Reminders(Orders orders, OutboxPublisher publisher) {
    this.orders = orders;
    this.publisher = publisher;
  }

  // tag::schedule[]
  @Outbox
  public void place(Order order) {
    orders.save(order);
    publisher.publish(new OrderPlaced(order.id()));                        // published at once
    ScheduledMessage reminder = publisher.schedule(new PaymentReminder(order.id()),
        Instant.now().plus(Duration.ofDays(3)));                             // published in 3 days
    order.setReminderId(reminder.scheduleId());                           // keep the token with the order
  }

  @Outbox
  public void pay(Order order) {
    order.markPaid();
    publisher.cancel(order.getReminderId());   // true: the reminder will never be sent
  }
  // end::schedule[]
}
