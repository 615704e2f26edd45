package dev.waybill.outbox.store;

import java.util.List;
import java.util.Optional;

/**
 * The stores this application publishes to and relays from. The default store is always there;
 * the others come from {@code waybill.stores.<name>.*} at start-up and from {@link #register} and
 * {@link #deregister} at run time (a tenant signs up or leaves), without a restart.
 *
 * @since 0.1
 */
public interface WaybillStores {

	/**
	 * Returns the store on the application's {@code DataSource}.
	 * @return the store named {@value WaybillStore#DEFAULT_NAME}
	 */
	WaybillStore defaultStore();

	/**
	 * Returns a store by name.
	 * @param name the name
	 * @return the store, or empty when none of that name is registered
	 */
	Optional<WaybillStore> find(String name);

	/**
	 * Returns every registered store, the default first, then in the order they were registered.
	 * @return the stores
	 */
	List<WaybillStore> all();

	/**
	 * Registers a store: creates or migrates its tables (unless {@code waybill.liquibase.enabled}
	 * is {@code false}), then makes it a store publishes may write to, and the relay relays it
	 * from then on.
	 * @param store the store
	 * @throws IllegalArgumentException when a store of that name, or with the same tables in the
	 * same {@code DataSource}, is registered already
	 * @throws IllegalStateException when its tables could not be created or migrated (nothing is
	 * registered then)
	 */
	void register(WaybillStore store);

	/**
	 * Deregisters a store: publishes to it fail from then on, and the relay claims nothing more from
	 * it (what it holds of it is still settled there). Its tables and rows stay where they are.
	 * @param name the store's name
	 * @return whether a store of that name was registered
	 * @throws IllegalArgumentException for the default store, which cannot be deregistered
	 */
	boolean deregister(String name);

}
