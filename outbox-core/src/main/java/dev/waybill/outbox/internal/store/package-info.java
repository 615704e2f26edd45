/**
 * The stores behind {@link dev.waybill.outbox.store.WaybillStores}: the registry, how a publish
 * finds its transaction's store, and the writer that writes there.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.store;

import org.jspecify.annotations.NullMarked;
