package dev.waybill.kernel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * What a worker keeps for each registered store other than the default one, following the
 * registry: a store registered since the last look gets its own, a deregistered one loses it, and
 * one registered again under the same name with another database gets a new one.
 *
 * @param <T> what is kept per store
 * @since 0.1
 */
public final class PerStore<T> {

	private final Supplier<List<StoreAccess>> stores;

	private final Function<StoreAccess, T> create;

	/** As last seen, by name; replaced whole, read without a lock. */
	private volatile Map<String, Kept<T>> seen = Map.of();

	/**
	 * Creates the follower.
	 * @param stores the registered stores other than the default, now
	 * @param create makes what is kept for a store
	 */
	public PerStore(Supplier<List<StoreAccess>> stores, Function<StoreAccess, T> create) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.create = Objects.requireNonNull(create, "create must not be null");
	}

	/**
	 * Returns what is kept for each store registered now, in the registry's order.
	 * @return by store name
	 */
	public Map<String, T> current() {
		Map<String, Kept<T>> before = this.seen;
		Map<String, Kept<T>> now = new LinkedHashMap<>();
		for (StoreAccess store : this.stores.get()) {
			Kept<T> known = before.get(store.name());
			now.put(store.name(), (known != null && known.store().equals(store)) ? known
					: new Kept<>(store, this.create.apply(store)));
		}
		if (!now.equals(before)) {
			this.seen = Map.copyOf(now);
		}
		Map<String, T> values = new LinkedHashMap<>();
		now.forEach((name, kept) -> values.put(name, kept.value()));
		return values;
	}

	/**
	 * Returns what is kept for one store.
	 * @param store the store's name, not the default store's
	 * @return what is kept for it
	 * @throws UnknownStoreException when no store of that name is registered
	 */
	public T of(String store) {
		Map<String, T> current = current();
		T value = current.get(store);
		if (value == null) {
			List<String> names = new ArrayList<>();
			names.add(WaybillStore.DEFAULT_NAME);
			names.addAll(current.keySet());
			throw new UnknownStoreException("No store '" + store + "' is registered; registered stores: " + names);
		}
		return value;
	}

	private record Kept<T>(StoreAccess store, T value) {
	}

}
