package dev.waybill.inbox.internal;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.waybill.inbox.InboxLookup;
import dev.waybill.inbox.StoreInboxLookups;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * The inbox lookup of each registered store: the application's for the default store, one over
 * the store's own inbox table for each other (made on first use, forgotten with the registration).
 *
 * @since 0.1
 */
public final class DefaultStoreInboxLookups implements StoreInboxLookups {

	private final InboxLookup defaultLookup;

	private final WaybillStores stores;

	private final OutboxTables tables;

	private final Map<WaybillStore, InboxLookup> lookups = new ConcurrentHashMap<>();

	/**
	 * Creates the lookups.
	 * @param defaultLookup the default store's
	 * @param stores the stores
	 * @param tables the default store's tables, whose names every store's follow
	 */
	public DefaultStoreInboxLookups(InboxLookup defaultLookup, WaybillStores stores, OutboxTables tables) {
		this.defaultLookup = Objects.requireNonNull(defaultLookup, "defaultLookup must not be null");
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
	}

	@Override
	public InboxLookup of(String store) {
		if (WaybillStore.DEFAULT_NAME.equals(store)) {
			return this.defaultLookup;
		}
		WaybillStore registered = this.stores.find(store)
			.orElseThrow(() -> new UnknownStoreException("No store '" + store + "' is registered; registered stores: "
					+ this.stores.all().stream().map(WaybillStore::name).toList()));
		this.lookups.keySet().retainAll(this.stores.all());
		return this.lookups.computeIfAbsent(registered,
				(entry) -> new JdbcInboxLookup(entry.dataSource(), this.tables.withSchema(entry.schema())));
	}

}
