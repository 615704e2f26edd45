/**
 * The inbox processor: records each delivery once per consumer, runs the handler in the same transaction, and schedules retries or faults.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.inbox.internal;

import org.jspecify.annotations.NullMarked;
