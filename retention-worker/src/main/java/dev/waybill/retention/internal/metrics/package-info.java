/**
 * Micrometer meters of the retention worker.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.retention.internal.metrics;

import org.jspecify.annotations.NullMarked;
