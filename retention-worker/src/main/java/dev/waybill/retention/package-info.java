/**
 * The retention worker: purges completed (and, when asked, incomplete) outbox scopes and inbox
 * rows in small locked batches, one host at a time.
 */
@NullMarked
package dev.waybill.retention;

import org.jspecify.annotations.NullMarked;
