package dev.waybill.outbox.internal.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.CurrentStore;
import dev.waybill.outbox.internal.store.RegisteredStore.DatabaseIdentity;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.UnknownStoreException;

/**
 * Tells which store the current transaction writes to, or fails: the store the work belongs to
 * ({@link CurrentStore}, a message the inbox handles) or else the one the {@link StoreResolver}
 * names, which the transaction must be able to write to; else the store of
 * the {@code DataSource} the transaction manages; else the store whose database the transaction's
 * connection reaches (an {@code AbstractRoutingDataSource} in front of the stores' databases).
 * Where that leaves more than one store, or none while several are registered, the publish fails
 * with an {@link UnknownStoreException}.
 *
 * @since 0.1
 */
final class StoreOfTransaction {

	private final DefaultWaybillStores stores;

	private final @Nullable StoreResolver resolver;

	StoreOfTransaction(DefaultWaybillStores stores, @Nullable StoreResolver resolver) {
		this.stores = stores;
		this.resolver = resolver;
	}

	/**
	 * Returns the store of the current transaction.
	 * @return the store, and the connection to write on when it is not one its own DataSource gives
	 * @throws UnknownStoreException when it cannot be told
	 */
	Target resolve() {
		if (this.resolver == null && this.stores.defaultOnly()) {
			return new Target(this.stores.defaultEntry(), null);
		}
		String named = named();
		return (named != null) ? named(named) : byTransaction();
	}

	/** The store Waybill knows the current work belongs to, else the one the resolver names. */
	private @Nullable String named() {
		String known = CurrentStore.name();
		if (known != null) {
			return known;
		}
		return (this.resolver != null) ? this.resolver.currentStore() : null;
	}

	/**
	 * Returns the store to write to on a connection the caller holds (a Hibernate session's): the
	 * store the resolver names, whose database must be the connection's; else the one store whose
	 * database the connection reaches.
	 * @param connection the connection
	 * @return the store
	 * @throws UnknownStoreException when it cannot be told
	 */
	RegisteredStore resolve(Connection connection) {
		if (this.resolver == null && this.stores.defaultOnly()) {
			return this.stores.defaultEntry();
		}
		DatabaseIdentity database = database(connection);
		String named = named();
		if (named != null) {
			RegisteredStore store = this.stores.entry(named);
			if (store == null || !store.database().equals(database)) {
				throw new UnknownStoreException("The StoreResolver named store '" + named + "', "
						+ ((store == null) ? "which is not registered (registered stores: " + this.stores.registered() + ")"
								: "but the session's connection reaches another database (" + database.url() + ")")
						+ "; nothing was written");
			}
			return store;
		}
		List<RegisteredStore> reached = this.stores.registered().stream()
			.filter((store) -> store.database().equals(database))
			.toList();
		if (reached.size() == 1) {
			return reached.get(0);
		}
		if (reached.isEmpty()) {
			throw new UnknownStoreException("The session's connection reaches " + database.url() + ", the database of no "
					+ "registered Waybill store (stores: " + this.stores.registered() + "); nothing was written");
		}
		throw ambiguous("the session's connection reaches the database of stores " + reached);
	}

	private Target named(String name) {
		RegisteredStore store = this.stores.entry(name);
		if (store == null) {
			throw new UnknownStoreException("The StoreResolver named store '" + name + "', which is not registered; "
					+ "registered stores: " + this.stores.registered() + ". Register it (waybill.stores." + name
					+ ".*, or WaybillStores.register) before publishing to it");
		}
		if (TransactionSynchronizationManager.hasResource(store.store().dataSource())) {
			return new Target(store, null);
		}
		for (Connection connection : otherConnections()) {
			if (database(connection).equals(store.database())) {
				return new Target(store, connection);
			}
		}
		throw new UnknownStoreException("The StoreResolver named store '" + name + "', but the current transaction "
				+ "holds no connection to its database (" + store.database().url() + "); nothing was written. Run the "
				+ "publishing method under the transaction manager of that store's DataSource");
	}

	private Target byTransaction() {
		Set<RegisteredStore> bound = new LinkedHashSet<>();
		List<Connection> others = new ArrayList<>();
		for (Map.Entry<Object, Object> resource : TransactionSynchronizationManager.getResourceMap().entrySet()) {
			if (resource.getKey() instanceof DataSource dataSource) {
				List<RegisteredStore> on = this.stores.on(dataSource);
				if (!on.isEmpty()) {
					bound.addAll(on);
				}
				else if (resource.getValue() instanceof ConnectionHolder holder) {
					others.add(holder.getConnection());
				}
			}
		}
		if (bound.size() == 1) {
			return new Target(bound.iterator().next(), null);
		}
		if (bound.size() > 1) {
			throw ambiguous("the current transaction's DataSources hold stores " + bound);
		}
		List<Target> reached = new ArrayList<>();
		for (Connection connection : others) {
			DatabaseIdentity database = database(connection);
			for (RegisteredStore store : this.stores.registered()) {
				if (store.database().equals(database)) {
					reached.add(new Target(store, connection));
				}
			}
		}
		if (reached.size() == 1) {
			return reached.get(0);
		}
		if (reached.size() > 1) {
			throw ambiguous("the current transaction's connection reaches the database of stores "
					+ reached.stream().map((target) -> target.store().name()).toList());
		}
		if (others.isEmpty()) {
			// No DataSource bound at all: the default store's writer says what the transaction lacks.
			return new Target(this.stores.defaultEntry(), null);
		}
		throw new UnknownStoreException("The current transaction writes to no registered Waybill store (stores: "
				+ this.stores.registered() + "): none has its DataSource or its database; nothing was written. Register "
				+ "the database as a store, or publish under the transaction manager of a store's DataSource");
	}

	private UnknownStoreException ambiguous(String what) {
		return new UnknownStoreException("Waybill cannot tell which store to write to: " + what + "; nothing was "
				+ "written. Declare a StoreResolver bean that names the store of the current transaction (e.g. from "
				+ "the request's tenant)");
	}

	private static List<Connection> otherConnections() {
		List<Connection> connections = new ArrayList<>();
		for (Map.Entry<Object, Object> resource : TransactionSynchronizationManager.getResourceMap().entrySet()) {
			if (resource.getKey() instanceof DataSource && resource.getValue() instanceof ConnectionHolder holder) {
				connections.add(holder.getConnection());
			}
		}
		return connections;
	}

	private static DatabaseIdentity database(Connection connection) {
		try {
			return DatabaseIdentity.of(connection);
		}
		catch (SQLException ex) {
			throw new UnknownStoreException("Could not tell which database the current transaction's connection "
					+ "reaches, so nothing was written: " + ex);
		}
	}

	/**
	 * Where to write.
	 *
	 * @param store the store
	 * @param connection the transaction's connection to write on, or {@literal null} for the one the
	 * store's own DataSource has bound to the transaction
	 */
	record Target(RegisteredStore store, @Nullable Connection connection) {

	}

}
