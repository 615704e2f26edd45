/**
 * Micrometer meters of the outbox relay, named under {@code waybill.outbox.}.
 */
@NullMarked
package dev.waybill.outbox.internal.metrics;

import org.jspecify.annotations.NullMarked;
