package dev.waybill.outbox.internal.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.internal.jdbc.ScopeRouting;
import dev.waybill.outbox.internal.store.StoreOfTransaction.Target;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.store.StoreResolver;

/**
 * Routes the default store's writes to the store of their transaction or connection
 * ({@link StoreOfTransaction}), through that store's writer, and tells the registry's listeners
 * (the relay) after the commit which store has work.
 *
 * @since 0.1
 */
public final class StoreRouting implements ScopeRouting {

	private static final SQLExceptionTranslator TRANSLATOR = new SQLExceptionSubclassTranslator();

	private final DefaultWaybillStores stores;

	private final StoreOfTransaction resolution;

	/**
	 * Creates the routing.
	 * @param stores the stores
	 * @param resolver names the current transaction's store, or {@literal null} to tell it from the
	 * transaction alone
	 */
	public StoreRouting(DefaultWaybillStores stores, @Nullable StoreResolver resolver) {
		this.stores = Objects.requireNonNull(stores, "stores must not be null");
		this.resolution = new StoreOfTransaction(stores, resolver);
	}

	@Override
	public boolean checkElsewhere() {
		return !isDefault(this.resolution.resolve().store());
	}

	@Override
	public boolean writeElsewhere(OutboxScope scope) {
		Target target = this.resolution.resolve();
		if (isDefault(target.store())) {
			return false;
		}
		Connection connection = target.connection();
		if (connection == null) {
			target.store().writer().write(scope);
		}
		else {
			try {
				target.store().writer().write(connection, scope);
			}
			catch (SQLException ex) {
				throw translate("Writing outbox scope " + scope.id() + " to store '" + target.store().name() + "'", ex);
			}
		}
		afterCommit(target.store().name());
		return true;
	}

	@Override
	public int writeElsewhere(Connection connection, OutboxScope scope) throws SQLException {
		RegisteredStore store = this.resolution.resolve(connection);
		if (isDefault(store)) {
			return -1;
		}
		int written = store.writer().write(connection, scope);
		afterCommit(store.name());
		return written;
	}

	@Override
	public @Nullable Boolean cancelElsewhere(UUID scopeId) {
		Target target = this.resolution.resolve();
		if (isDefault(target.store())) {
			return null;
		}
		Connection connection = target.connection();
		if (connection == null) {
			return target.store().writer().cancel(scopeId);
		}
		try {
			return target.store().writer().cancel(connection, scopeId);
		}
		catch (SQLException ex) {
			throw translate("Cancelling scheduled scope " + scopeId + " in store '" + target.store().name() + "'", ex);
		}
	}

	@Override
	public @Nullable Boolean cancelElsewhere(Connection connection, UUID scopeId) throws SQLException {
		RegisteredStore store = this.resolution.resolve(connection);
		return isDefault(store) ? null : store.writer().cancel(connection, scopeId);
	}

	private boolean isDefault(RegisteredStore store) {
		return store == this.stores.defaultEntry();
	}

	private void afterCommit(String store) {
		DefaultWaybillStores stores = this.stores;
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			// a connection whose holder commits it without Spring: the store's poll finds it if this is early
			stores.written(store);
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
			@Override
			public void afterCommit() {
				stores.written(store);
			}
		});
	}

	private static DataAccessException translate(String task, SQLException ex) {
		DataAccessException translated = TRANSLATOR.translate(task, null, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
	}

}
