/**
 * Listening to the retention worker: implement {@link dev.waybill.retention.RetentionListener} as a
 * bean to receive each run's {@link dev.waybill.retention.RetentionResult}; run a purge on demand
 * through the {@link dev.waybill.retention.RetentionRunner} bean. The worker, which purges
 * completed (and, when asked, incomplete) outbox scopes and inbox rows in small locked batches, one
 * host at a time, is auto-configured and internal.
 */
@NullMarked
package dev.waybill.retention;

import org.jspecify.annotations.NullMarked;
