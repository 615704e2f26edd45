/**
 * Micrometer meters of the outbox relay, named under {@code waybill.outbox.}.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.metrics;

import org.jspecify.annotations.NullMarked;
