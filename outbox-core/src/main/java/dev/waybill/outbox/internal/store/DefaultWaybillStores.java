package dev.waybill.outbox.internal.store;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * The registry of stores: the default one, given at creation, and those registered since. What
 * publishes and the relay read is an immutable snapshot, replaced on each change, so a publish
 * never waits for a registration.
 *
 * @since 0.1
 */
public final class DefaultWaybillStores implements WaybillStores {

	private static final Log logger = LogFactory.getLog(DefaultWaybillStores.class);

	private final RegisteredStore defaultStore;

	private final Migration migration;

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	private volatile Snapshot snapshot;

	/**
	 * Creates the registry.
	 * @param defaultStore the store on the application's {@code DataSource}, migrated already
	 * @param migration creates or migrates a store's tables on registration
	 */
	public DefaultWaybillStores(RegisteredStore defaultStore, Migration migration) {
		this.defaultStore = Objects.requireNonNull(defaultStore, "defaultStore must not be null");
		if (!defaultStore.name().equals(WaybillStore.DEFAULT_NAME)) {
			throw new IllegalArgumentException("The default store must be named '" + WaybillStore.DEFAULT_NAME + "'");
		}
		this.migration = Objects.requireNonNull(migration, "migration must not be null");
		this.snapshot = new Snapshot(List.of(defaultStore));
	}

	/**
	 * Tells a listener of every store registered or deregistered from now on.
	 * @param listener the listener
	 */
	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	@Override
	public WaybillStore defaultStore() {
		return this.defaultStore.store();
	}

	@Override
	public Optional<WaybillStore> find(String name) {
		RegisteredStore registered = this.snapshot.byName.get(name);
		return (registered != null) ? Optional.of(registered.store()) : Optional.empty();
	}

	@Override
	public List<WaybillStore> all() {
		return this.snapshot.stores.stream().map(RegisteredStore::store).toList();
	}

	/**
	 * Returns every registered store, the default first.
	 * @return the stores with their writers and relay stores
	 */
	public List<RegisteredStore> registered() {
		return this.snapshot.stores;
	}

	/**
	 * Returns the default store's entry.
	 * @return the default store
	 */
	public RegisteredStore defaultEntry() {
		return this.defaultStore;
	}

	@Override
	public void register(WaybillStore store) {
		Objects.requireNonNull(store, "store must not be null");
		OutboxTables tables = this.defaultStore.tables().withSchema(store.schema());
		RegisteredStore registered;
		synchronized (this) {
			check(store, this.snapshot);
			try {
				this.migration.migrate(store.dataSource(), tables);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not create or migrate the tables " + tables.qualifiedOutboxState()
						+ " of store '" + store.name() + "', so it was not registered: " + ex, ex);
			}
			JdbcOutboxStore jdbc = new JdbcOutboxStore(store.dataSource(), tables);
			registered = new RegisteredStore(store, tables, jdbc, jdbc);
			List<RegisteredStore> stores = new ArrayList<>(this.snapshot.stores);
			stores.add(registered);
			this.snapshot = new Snapshot(stores);
		}
		logger.info("Waybill store '" + store.name() + "' registered (schema " + store.schema() + ")");
		this.listeners.forEach((listener) -> listener.registered(registered));
	}

	private static void check(WaybillStore store, Snapshot snapshot) {
		if (snapshot.byName.containsKey(store.name())) {
			throw new IllegalArgumentException("A Waybill store named '" + store.name() + "' is registered already");
		}
		for (RegisteredStore other : snapshot.stores) {
			if (other.store().dataSource() == store.dataSource() && other.store().schema().equals(store.schema())) {
				throw new IllegalArgumentException("Store '" + store.name() + "' would share the tables of store '"
						+ other.name() + "' (schema " + store.schema() + " of the same DataSource); give it a schema of its own");
			}
		}
	}

	@Override
	public boolean deregister(String name) {
		if (WaybillStore.DEFAULT_NAME.equals(name)) {
			throw new IllegalArgumentException("The default Waybill store cannot be deregistered");
		}
		RegisteredStore removed;
		synchronized (this) {
			removed = this.snapshot.byName.get(name);
			if (removed == null) {
				return false;
			}
			List<RegisteredStore> stores = new ArrayList<>(this.snapshot.stores);
			stores.remove(removed);
			this.snapshot = new Snapshot(stores);
		}
		logger.info("Waybill store '" + name + "' deregistered");
		this.listeners.forEach((listener) -> listener.deregistered(removed));
		return true;
	}

	/**
	 * Tells the listeners that a transaction of this process committed scopes to a store other
	 * than the default one.
	 * @param name the store's name
	 */
	void written(String name) {
		for (Listener listener : this.listeners) {
			listener.written(name);
		}
	}

	/**
	 * Returns the registered store of that name.
	 * @param name the name
	 * @return the store, or {@literal null}
	 */
	@Nullable RegisteredStore entry(String name) {
		return this.snapshot.byName.get(name);
	}

	/**
	 * Returns the stores whose {@code DataSource} is the given one.
	 * @param dataSource a DataSource
	 * @return its stores, none when it is no store's
	 */
	List<RegisteredStore> on(DataSource dataSource) {
		return this.snapshot.byDataSource.getOrDefault(dataSource, List.of());
	}

	/**
	 * Whether the default store is the only one.
	 * @return whether no other store is registered
	 */
	boolean defaultOnly() {
		return this.snapshot.stores.size() == 1;
	}

	/** Creates or migrates a store's tables. */
	@FunctionalInterface
	public interface Migration {

		/** Leaves the tables alone: the application creates them itself. */
		Migration NONE = (dataSource, tables) -> {
		};

		/**
		 * Creates or migrates a store's tables.
		 * @param dataSource the store's database
		 * @param tables its tables
		 * @throws Exception when they cannot be
		 */
		void migrate(DataSource dataSource, OutboxTables tables) throws Exception;

	}

	/** Told of each registration and deregistration, after it took effect. */
	public interface Listener {

		/**
		 * A store was registered.
		 * @param store the store
		 */
		void registered(RegisteredStore store);

		/**
		 * A store was deregistered.
		 * @param store the store
		 */
		void deregistered(RegisteredStore store);

		/**
		 * A transaction of this process committed scopes to a store other than the default one.
		 * @param name the store's name
		 */
		default void written(String name) {
		}

	}

	private static final class Snapshot {

		final List<RegisteredStore> stores;

		final Map<String, RegisteredStore> byName = new LinkedHashMap<>();

		final Map<DataSource, List<RegisteredStore>> byDataSource = new IdentityHashMap<>();

		Snapshot(List<RegisteredStore> stores) {
			this.stores = List.copyOf(stores);
			for (RegisteredStore store : stores) {
				this.byName.put(store.name(), store);
				this.byDataSource.computeIfAbsent(store.store().dataSource(), (ds) -> new ArrayList<>()).add(store);
			}
		}

	}

}
