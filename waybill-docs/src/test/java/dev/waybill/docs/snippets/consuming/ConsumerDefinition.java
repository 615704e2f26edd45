package dev.waybill.docs.snippets.consuming;

import java.util.UUID;

import com.acme.AlreadyPaidException;
import com.acme.CardDeclinedException;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

// tag::definition[]
@Consumer(queue = "payments", maxAttempts = 3, retryInterval = "2s", immediateRetries = 1,
    neverRetry = CardDeclinedException.class,        // straight to payments_error, one attempt
    ignore = AlreadyPaidException.class,             // acknowledged, recorded processed with a note
    bindings = @Consumer.Binding(exchange = "regions", routingKey = "orders.eu.*"))
class ChargeHandler implements MessageHandler<Charge> {
  @Override
  public void handle(Charge charge, MessageContext context) {
    // charge the card
  }
}
// end::definition[]

@MessageType("payments.charge")
record Charge(UUID orderId, long cents) {}
