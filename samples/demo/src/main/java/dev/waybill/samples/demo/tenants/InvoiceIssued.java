package dev.waybill.samples.demo.tenants;

import java.util.UUID;

import dev.waybill.outbox.MessageType;

/**
 * An invoice a tenant issued.
 *
 * @param invoiceId the invoice
 * @param cents its amount
 */
@MessageType("tenants.invoice-issued")
record InvoiceIssued(UUID invoiceId, long cents) {
}
