package dev.waybill.docs.snippets.consuming;

import java.util.UUID;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

// tag::endpoint[]
@Component
@Consumer(queue = "billing", concurrency = 1)                  // the endpoint; see naming below
class ChargeCardHandler implements MessageHandler<OrderPlaced> {
  private final PaymentRepository payments;

  ChargeCardHandler(PaymentRepository payments) { this.payments = payments; }

  @Override
  public void handle(OrderPlaced event, MessageContext context) {
    payments.save(new Payment(event.orderId(), event.totalCents()));   // same transaction as the inbox row
    context.publish(new PaymentCaptured(event.orderId()));           // consumer outbox: sent only if this commits
  }
}

@Component
@Consumer(queue = "billing")                                    // the same endpoint, another type
class RefundCancelled implements MessageHandler<OrderCancelled> {
  private final PaymentRepository payments;

  RefundCancelled(PaymentRepository payments) { this.payments = payments; }

  @Override
  public void handle(OrderCancelled event, MessageContext context) {
    payments.refund(event.orderId());
  }
}
// end::endpoint[]

@MessageType("orders.order-cancelled")
record OrderCancelled(UUID orderId) {}

@MessageType("billing.payment-captured")
record PaymentCaptured(UUID orderId) {}

record Payment(UUID orderId, long cents) {}

interface PaymentRepository {
  void save(Payment payment);
  void refund(UUID orderId);
}
