/**
 * The retention worker: purges completed outbox scopes and inbox rows in small locked batches.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.retention.internal;

import org.jspecify.annotations.NullMarked;
