/**
 * Micrometer meters of the retention worker.
 */
@NullMarked
package dev.waybill.retention.internal.metrics;

import org.jspecify.annotations.NullMarked;
