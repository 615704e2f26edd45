package dev.waybill.outbox.internal.store;

import java.sql.Connection;
import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.store.WaybillStore;

/**
 * A store as the registry keeps it: what writes to it, what the relay claims from, and the
 * database its {@code DataSource} connects to, read from a connection of it when first needed.
 *
 * @since 0.1
 */
public final class RegisteredStore {

	private final WaybillStore store;

	private final OutboxTables tables;

	private final ConnectionOutboxWriter writer;

	private final OutboxStore relayed;

	private volatile @Nullable DatabaseIdentity database;

	/**
	 * Creates the entry.
	 * @param store the store
	 * @param tables its tables
	 * @param writer writes scopes on a connection of the store's database
	 * @param relayed what the relay claims and settles through
	 */
	public RegisteredStore(WaybillStore store, OutboxTables tables, ConnectionOutboxWriter writer, OutboxStore relayed) {
		this.store = store;
		this.tables = tables;
		this.writer = writer;
		this.relayed = relayed;
	}

	/**
	 * Returns the store.
	 * @return the store
	 */
	public WaybillStore store() {
		return this.store;
	}

	/**
	 * Returns the store's name.
	 * @return the name
	 */
	public String name() {
		return this.store.name();
	}

	/**
	 * Returns the store's tables.
	 * @return the tables
	 */
	public OutboxTables tables() {
		return this.tables;
	}

	/**
	 * Returns what writes scopes to this store on a connection of its database.
	 * @return the writer
	 */
	public ConnectionOutboxWriter writer() {
		return this.writer;
	}

	/**
	 * Returns what the relay claims from and settles through.
	 * @return the store's relay store
	 */
	public OutboxStore relayed() {
		return this.relayed;
	}

	/**
	 * Returns the database the store's connections reach.
	 * @return its identity
	 * @throws IllegalStateException when no connection could be had to read it
	 */
	public DatabaseIdentity database() {
		DatabaseIdentity database = this.database;
		if (database == null) {
			// A connection of its own, not bound to the caller's transaction.
			try (Connection connection = this.store.dataSource().getConnection()) {
				database = DatabaseIdentity.of(connection);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not tell which database store '" + name() + "' connects to: " + ex,
						ex);
			}
			this.database = database;
		}
		return database;
	}

	@Override
	public String toString() {
		return this.store.name();
	}

	/**
	 * The database a connection reaches: its URL without parameters and its catalog, both known to
	 * the driver without a round trip.
	 *
	 * @param url the JDBC URL up to its parameters
	 * @param catalog the connection's database
	 */
	public record DatabaseIdentity(String url, @Nullable String catalog) {

		/**
		 * Reads the identity of a connection's database.
		 * @param connection the connection
		 * @return its identity
		 * @throws SQLException when the driver cannot tell
		 */
		public static DatabaseIdentity of(Connection connection) throws SQLException {
			String url = connection.getMetaData().getURL();
			int parameters = url.indexOf('?');
			return new DatabaseIdentity((parameters >= 0) ? url.substring(0, parameters) : url, connection.getCatalog());
		}

	}

}
