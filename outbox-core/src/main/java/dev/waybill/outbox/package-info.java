/**
 * Waybill's outbox API: annotate a method with {@link dev.waybill.outbox.Outbox @Outbox} and
 * publish through {@link dev.waybill.outbox.OutboxPublisher}; the messages are written in the same
 * transaction as the business rows and relayed to the broker after commit.
 */
@NullMarked
package dev.waybill.outbox;

import org.jspecify.annotations.NullMarked;
