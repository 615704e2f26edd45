/**
 * Extension points: how messages are serialized ({@link dev.waybill.outbox.spi.MessageSerializer}),
 * how the outbox is written inside the business transaction
 * ({@link dev.waybill.outbox.spi.OutboxWriter}) and how the relay claims and settles it
 * ({@link dev.waybill.outbox.spi.OutboxStore}).
 */
@NullMarked
package dev.waybill.outbox.spi;

import org.jspecify.annotations.NullMarked;
