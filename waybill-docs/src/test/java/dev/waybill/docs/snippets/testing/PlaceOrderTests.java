package dev.waybill.docs.snippets.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.test.AutoConfigureWaybillTest;
import dev.waybill.test.Delivery;
import dev.waybill.test.TestTransport;
import dev.waybill.test.WaybillTestHarness;

// tag::tests[]
@SpringBootTest(properties = "waybill.inbox.retry.interval=50ms")  // retries in ms, not the default 1s..8s
@AutoConfigureWaybillTest(transport = TestTransport.IN_MEMORY)   // PostgreSQL only; omit for RabbitMQ
class PlaceOrderTests {

  @Autowired WaybillTestHarness harness;
  @Autowired OrderService orders;

  @AfterEach
  void settle() {
    harness.awaitIdle();     // nothing pending in the outbox, in flight or being handled
  }

  @Test
  void aPlacedOrderIsChargedAndReceipted() {
    UUID id = orders.place("ada", 1250);

    // Published by a transaction that committed, with the message read back and its headers.
    OrderPlaced placed = harness.awaitPublished(OrderPlaced.class, (e) -> e.orderId().equals(id)).message();
    assertThat(placed.totalCents()).isEqualTo(1250);
    // Relayed, delivered through the inbox, handled; what the handler published went on.
    harness.awaitConsumed(ChargeCardHandler.class, OrderPlaced.class, (e) -> e.orderId().equals(id));
    harness.awaitConsumed(ReceiptHandler.class, CardCharged.class, (e) -> e.orderId().equals(id));
  }

  @Test
  void chargingIsIdempotent() {
    Delivery first = harness.deliver(ChargeCardHandler.class, new OrderPlaced(UUID.randomUUID(), 1250));
    Delivery again = first.redeliver();           // the same message id, body and headers

    assertThat(first.outcome()).isEqualTo(InboxOutcome.PROCESSED);
    assertThat(again.outcome()).isEqualTo(InboxOutcome.DUPLICATE); // the handler did not run
  }

  @Test
  void aCardThatCannotBeChargedEndsInTheErrorQueue() {
    // Five attempts with the default backoff (1, 2, 4, 8 s) take longer than a wait's 10 s:
    // the retry interval above keeps this test under a second.
    orders.place("bob", -1);

    harness.awaitRetried(ChargeCardHandler.class, OrderPlaced.class);
    harness.awaitFaulted(ChargeCardHandler.class, OrderPlaced.class);
  }
}
// end::tests[]

// The application the tests exercise: an order is charged, and a charge receipted.
@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("billing.card-charged")
record CardCharged(UUID orderId) {}

@Service
class OrderService {
  private final OutboxPublisher publisher;

  OrderService(OutboxPublisher publisher) { this.publisher = publisher; }

  @Outbox
  public UUID place(String customer, long totalCents) {
    UUID order = UUID.randomUUID();
    publisher.publish(new OrderPlaced(order, totalCents), (o) -> o.header("customer", customer));
    return order;
  }
}

@Component
class ChargeCardHandler implements MessageHandler<OrderPlaced> {
  @Override
  public void handle(OrderPlaced event, MessageContext context) {
    if (event.totalCents() < 0) {
      throw new IllegalArgumentException("card declined: " + event.totalCents());
    }
    context.publish(new CardCharged(event.orderId()));
  }
}

@Component
class ReceiptHandler implements MessageHandler<CardCharged> {
  @Override
  public void handle(CardCharged event, MessageContext context) {
  }
}
