package dev.waybill.retention.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Purges every store other than the default one, one after the other, after each run of the
 * default store's {@link RetentionWorker} and on its thread, each with a worker of its own (its
 * lock, batch size and outage log): an unavailable store is logged under its name and the others
 * are purged. Stores registered later are purged from the next run on; deregistered ones are left
 * alone.
 *
 * @since 0.1
 */
public final class StoreRetention {

	private final WaybillStores stores;

	private final Function<WaybillStore, RetentionWorker> workers;

	/** The default worker's scheduler thread only. */
	private final Map<WaybillStore, RetentionWorker> byStore = new HashMap<>();

	/**
	 * Creates the runs.
	 * @param stores the stores
	 * @param workers creates the worker of a store
	 */
	public StoreRetention(WaybillStores stores, Function<WaybillStore, RetentionWorker> workers) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.workers = Objects.requireNonNull(workers, "workers must not be null");
	}

	/** Purges each store other than the default one once. */
	void runOnce() {
		Set<WaybillStore> registered = new HashSet<>();
		for (WaybillStore store : this.stores.all()) {
			if (WaybillStore.DEFAULT_NAME.equals(store.name())) {
				continue;
			}
			registered.add(store);
			RetentionWorker worker = this.byStore.computeIfAbsent(store, this::newWorker);
			if (Thread.currentThread().isInterrupted()) {
				return;
			}
			worker.runScheduled();
		}
		this.byStore.keySet().retainAll(registered);
	}

	private RetentionWorker newWorker(WaybillStore store) {
		RetentionWorker worker = this.workers.apply(store);
		worker.setStoreName(store.name());
		return worker;
	}

}
