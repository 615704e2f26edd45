/**
 * Stores: where an outbox lives. A {@link dev.waybill.outbox.store.WaybillStore} is a
 * {@code DataSource} and the schema of Waybill's tables in it, with a name; one store, named
 * {@value dev.waybill.outbox.store.WaybillStore#DEFAULT_NAME}, is the application's
 * {@code DataSource} and needs no configuration. A service with a database or a schema per tenant,
 * or sharded over several primaries, registers one store for each in
 * {@link dev.waybill.outbox.store.WaybillStores} (from {@code waybill.stores.<name>.*} or at run
 * time). A publish writes to the store of its transaction, found from the transaction itself
 * (and, where one {@code DataSource} holds several stores, from the application's
 * {@link dev.waybill.outbox.store.StoreResolver}); when that cannot be told it fails with an
 * {@link dev.waybill.outbox.store.UnknownStoreException}.
 */
@NullMarked
package dev.waybill.outbox.store;

import org.jspecify.annotations.NullMarked;
