/**
 * Micrometer meters of the retention worker.
 */
@NullMarked
package dev.waybill.retention.metrics;

import org.jspecify.annotations.NullMarked;
