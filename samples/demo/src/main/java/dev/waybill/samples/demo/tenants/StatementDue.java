package dev.waybill.samples.demo.tenants;

import java.time.Instant;

import dev.waybill.outbox.MessageType;

/**
 * A tenant's statement is due: what the statement run publishes in each tenant's store.
 *
 * @param tenant the store the tick fired in
 * @param period the tick's scheduled time
 */
@MessageType("tenants.statement-due")
record StatementDue(String tenant, Instant period) {
}
