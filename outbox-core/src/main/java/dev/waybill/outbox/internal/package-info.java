/**
 * The implementations behind the outbox API: the transaction-bound publisher, the consumer outbox,
 * the admin, message type names, time-ordered ids and the Jackson serializer.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal;

import org.jspecify.annotations.NullMarked;
