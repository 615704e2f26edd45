package dev.waybill.outbox.internal.store;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxBrowser;
import dev.waybill.outbox.store.StoreAdmins;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The admin of each registered store: the application's for the default store, one over the
 * store's own tables for each other (made on first use, forgotten with the registration).
 *
 * @since 0.1
 */
public final class DefaultStoreAdmins implements StoreAdmins {

	private final OutboxAdmin defaultAdmin;

	private final DefaultWaybillStores stores;

	private final RelayWakeUp wakeUp;

	private final AdminAudit audit;

	private final Map<RegisteredStore, OutboxAdmin> admins = new ConcurrentHashMap<>();

	/**
	 * Creates the admins.
	 * @param defaultAdmin the default store's
	 * @param stores the stores
	 * @param wakeUp the wake-up of this process's relay
	 * @param audit records every change
	 */
	public DefaultStoreAdmins(OutboxAdmin defaultAdmin, DefaultWaybillStores stores, RelayWakeUp wakeUp,
			AdminAudit audit) {
		this.defaultAdmin = Objects.requireNonNull(defaultAdmin, "defaultAdmin must not be null");
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.audit = Objects.requireNonNull(audit, "audit must not be null");
	}

	@Override
	public List<String> names() {
		return this.stores.registered().stream().map(RegisteredStore::name).toList();
	}

	@Override
	public OutboxAdmin outbox(String store) {
		if (WaybillStore.DEFAULT_NAME.equals(store)) {
			return this.defaultAdmin;
		}
		RegisteredStore registered = this.stores.entry(store);
		if (registered == null) {
			throw new UnknownStoreException("No store '" + store + "' is registered; registered stores: " + names());
		}
		this.admins.keySet().retainAll(this.stores.registered());
		return this.admins.computeIfAbsent(registered, (entry) -> new DefaultOutboxAdmin(entry.relayed(), this.wakeUp,
				new JdbcOutboxBrowser(entry.store().dataSource(), entry.tables()), this.audit, entry.name()));
	}

}
