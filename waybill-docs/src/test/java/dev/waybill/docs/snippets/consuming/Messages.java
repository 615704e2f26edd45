package dev.waybill.docs.snippets.consuming;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

// The messages and collaborators the page's handlers use.
@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}

@MessageType("orders.order-cancelled")
record OrderCancelled(UUID orderId) {}

@MessageType("billing.payment-captured")
record PaymentCaptured(UUID orderId) {}

@MessageType("payments.charge")
record Charge(UUID orderId, long cents) {}

record Payment(UUID orderId, long cents) {}

interface PaymentRepository {
  void save(Payment payment);
  void refund(UUID orderId);
}

interface Orders {
  void paymentFailed(UUID orderId);
}
