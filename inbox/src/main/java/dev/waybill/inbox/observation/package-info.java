/**
 * The {@code waybill.inbox.process} Micrometer Observation: the handling of a delivery, continuing
 * the trace whose context the message's headers carry.
 */
@NullMarked
package dev.waybill.inbox.observation;

import org.jspecify.annotations.NullMarked;
