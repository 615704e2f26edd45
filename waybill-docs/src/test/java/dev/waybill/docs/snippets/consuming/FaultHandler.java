package dev.waybill.docs.snippets.consuming;

import java.util.UUID;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;

// tag::fault[]
@Component
@Consumer(queue = "orders.order-placed-faults")
class OrderPaymentFailed implements MessageHandler<Fault<OrderPlaced>> {
  private final Orders orders;

  OrderPaymentFailed(Orders orders) { this.orders = orders; }

  @Override
  public void handle(Fault<OrderPlaced> fault, MessageContext context) {
    orders.paymentFailed(fault.message().orderId());      // the failed message, typed
  }
}
// end::fault[]

interface Orders {
  void paymentFailed(UUID orderId);
}
