package dev.waybill.inbox.internal;

import org.jspecify.annotations.Nullable;

/**
 * Where a batch stopped early: at a delivery to handle alone ({@code entry} null: from scratch,
 * e.g. poison; else after its handler's failure in the batch, or, when that is null, after one of
 * Waybill's statements failed).
 *
 * @param entry the delivery that stopped the batch, or {@literal null}
 * @param handlerFailure how its handler failed, or {@literal null}
 */
record BatchStop(@Nullable BatchEntry entry, @Nullable Throwable handlerFailure) {
}
