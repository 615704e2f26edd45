/**
 * Default implementations behind the outbox API: the transaction-bound publisher, message type
 * names, time-ordered ids and the Jackson serializer.
 */
@NullMarked
package dev.waybill.outbox.internal;

import org.jspecify.annotations.NullMarked;
