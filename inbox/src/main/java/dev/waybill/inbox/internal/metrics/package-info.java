/**
 * The inbox's Micrometer meters.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.inbox.internal.metrics;

import org.jspecify.annotations.NullMarked;
