package dev.waybill.docs.snippets.gettingstarted;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

// tag::message[]
@MessageType("orders.order-placed")
public record OrderPlaced(UUID orderId, long totalCents) {}
// end::message[]
