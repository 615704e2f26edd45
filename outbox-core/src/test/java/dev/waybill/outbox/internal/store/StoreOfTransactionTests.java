package dev.waybill.outbox.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.CurrentStore;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.store.StoreOfTransaction.Target;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The rule that picks a publish's store, on transactions whose resources the test binds: the
 * store it names, else the one its DataSource or its connection's database says, never a guess.
 */
class StoreOfTransactionTests {

	private final List<Object> bound = new ArrayList<>();

	private final DataSource application = dataSource("jdbc:postgresql://db:5432/app", "app");

	private final DataSource acme = dataSource("jdbc:postgresql://db:5432/acme", "acme");

	private final DataSource unregistered = dataSource("jdbc:postgresql://db:5432/other", "other");

	private final DefaultWaybillStores stores = new DefaultWaybillStores(entry("default", this.application, "waybill"),
			DefaultWaybillStores.Migration.NONE);

	private String resolved;

	private final StoreOfTransaction resolution = new StoreOfTransaction(this.stores, () -> this.resolved);

	StoreOfTransactionTests() {
		this.stores.register(new WaybillStore("acme", this.acme, "waybill"));
		this.stores.register(new WaybillStore("initech", this.application, "tenant_initech"));
	}

	@AfterEach
	void unbind() {
		this.bound.forEach(TransactionSynchronizationManager::unbindResource);
	}

	@Test
	void theStoreTheResolverNamesIsTakenWhenTheTransactionHoldsItsDataSource() {
		bind(this.application);
		this.resolved = "initech";
		assertThat(this.resolution.resolve().store().name()).isEqualTo("initech");
		this.resolved = "default";
		assertThat(this.resolution.resolve().store().name()).isEqualTo("default");
	}

	@Test
	void aStoreTheResolverNamesMustBeOneTheTransactionCanWriteTo() {
		bind(this.application);
		this.resolved = "acme";
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(this.resolution::resolve)
			.withMessageContaining("holds no connection to its database (jdbc:postgresql://db:5432/acme)");
		this.resolved = "nope";
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(this.resolution::resolve)
			.withMessageContaining("store 'nope', which is not registered")
			.withMessageContaining("[default, acme, initech]");
	}

	@Test
	void theStoreTheInboxIsHandlingAMessageOfComesBeforeTheResolver() {
		bind(this.application);
		this.resolved = "default";
		Target target = CurrentStore.during("initech", this.resolution::resolve);
		assertThat(target.store().name()).isEqualTo("initech");
	}

	@Test
	void withoutANameTheDataSourceOfTheTransactionTellsWhenItHoldsOneStore() {
		bind(this.acme);
		Target target = this.resolution.resolve();
		assertThat(target.store().name()).isEqualTo("acme");
		assertThat(target.connection()).as("the store's own DataSource's").isNull();
	}

	@Test
	void withoutANameADataSourceOfTwoStoresIsNoAnswer() {
		bind(this.application);
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(this.resolution::resolve)
			.withMessageContaining("cannot tell which store")
			.withMessageContaining("[default, initech]");
	}

	@Test
	void aConnectionOfAnotherDataSourceToAStoresDatabaseWritesThere() {
		DataSource routing = dataSource("jdbc:postgresql://db:5432/acme?ApplicationName=router", "acme");
		Connection connection = bind(routing);
		Target target = this.resolution.resolve();
		assertThat(target.store().name()).isEqualTo("acme");
		assertThat(target.connection()).isSameAs(connection);
	}

	@Test
	void aConnectionToADatabaseOfNoStoreIsRefused() {
		bind(this.unregistered);
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(this.resolution::resolve)
			.withMessageContaining("writes to no registered Waybill store");
	}

	@Test
	void aConnectionToTheDatabaseOfTwoStoresIsNoAnswer() {
		bind(dataSource("jdbc:postgresql://db:5432/app", "app"));
		assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(this.resolution::resolve)
			.withMessageContaining("reaches the database of stores [default, initech]");
	}

	@Test
	void aConnectionTheCallerHoldsIsTheStoreOfItsDatabase() throws Exception {
		assertThat(this.resolution.resolve(this.acme.getConnection()).name()).isEqualTo("acme");
		assertThatExceptionOfType(UnknownStoreException.class)
			.isThrownBy(() -> this.resolution.resolve(this.application.getConnection()))
			.withMessageContaining("[default, initech]");
		this.resolved = "initech";
		assertThat(this.resolution.resolve(this.application.getConnection()).name()).isEqualTo("initech");
		this.resolved = "acme";
		assertThatExceptionOfType(UnknownStoreException.class)
			.isThrownBy(() -> this.resolution.resolve(this.application.getConnection()))
			.withMessageContaining("reaches another database");
	}

	@Test
	void withOnlyTheDefaultStoreAndNoResolverTheTransactionIsNotLookedAt() {
		DefaultWaybillStores alone = new DefaultWaybillStores(entry("default", this.application, "waybill"),
				DefaultWaybillStores.Migration.NONE);
		bind(this.unregistered);
		assertThat(new StoreOfTransaction(alone, null).resolve().store()).isSameAs(alone.defaultEntry());
	}

	private Connection bind(DataSource dataSource) {
		Connection connection = connection(dataSource);
		TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(connection));
		this.bound.add(dataSource);
		return connection;
	}

	private static Connection connection(DataSource dataSource) {
		try {
			return dataSource.getConnection();
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static RegisteredStore entry(String name, DataSource dataSource, String schema) {
		OutboxTables tables = OutboxTables.inSchema(schema);
		JdbcOutboxStore store = new JdbcOutboxStore(dataSource, tables);
		return new RegisteredStore(new WaybillStore(name, dataSource, schema), tables, store, store);
	}

	/** A DataSource whose connections report the given URL and database, and do nothing else. */
	private static DataSource dataSource(String url, String catalog) {
		DatabaseMetaData metaData = (DatabaseMetaData) Proxy.newProxyInstance(DatabaseMetaData.class.getClassLoader(),
				new Class<?>[] { DatabaseMetaData.class }, (proxy, method, args) -> switch (method.getName()) {
					case "getURL" -> url;
					default -> throw new UnsupportedOperationException(method.getName());
				});
		return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> switch (method.getName()) {
					case "getConnection" -> Proxy.newProxyInstance(Connection.class.getClassLoader(),
							new Class<?>[] { Connection.class }, (c, m, a) -> switch (m.getName()) {
								case "getMetaData" -> metaData;
								case "getCatalog" -> catalog;
								case "close" -> null;
								case "isClosed" -> false;
								default -> throw new UnsupportedOperationException(m.getName());
							});
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					case "toString" -> "DataSource of " + url;
					default -> throw new UnsupportedOperationException(method.getName());
				});
	}

}
