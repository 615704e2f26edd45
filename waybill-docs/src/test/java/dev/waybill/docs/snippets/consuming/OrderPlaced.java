package dev.waybill.docs.snippets.consuming;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

@MessageType("orders.order-placed")
record OrderPlaced(UUID orderId, long totalCents) {}
