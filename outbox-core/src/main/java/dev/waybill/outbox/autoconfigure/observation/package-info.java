/**
 * Auto-configuration of Waybill's Micrometer Observations.
 */
@NullMarked
package dev.waybill.outbox.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
