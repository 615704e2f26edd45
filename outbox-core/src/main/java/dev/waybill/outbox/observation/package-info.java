/**
 * Tracing and log context: Micrometer Observations of the outbox publish, the relay's publish and
 * (in the inbox module) the handling of a delivery, carrying the W3C trace context in the messages'
 * headers, and the MDC entries Waybill sets while it works on a message.
 */
@NullMarked
package dev.waybill.outbox.observation;

import org.jspecify.annotations.NullMarked;
