package dev.waybill.kernel;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * The transaction manager Waybill's own work in a store runs in (a consumed message's inbox row
 * and handler, a schedule's tick, a replay batch): the application's for a store on the
 * application's {@code DataSource} (a schema per tenant), so that a handler's or a tick's own
 * writes through it join; one over the store's {@code DataSource} otherwise, made once per
 * {@code DataSource}.
 *
 * @since 0.1
 */
public final class StoreTransactions {

	private final DataSource applicationDataSource;

	private final PlatformTransactionManager application;

	private final Map<DataSource, PlatformTransactionManager> others = new ConcurrentHashMap<>();

	/**
	 * Creates the lookup.
	 * @param applicationDataSource the application's {@code DataSource}, the default store's
	 * @param application the transaction manager of {@code applicationDataSource}
	 */
	public StoreTransactions(DataSource applicationDataSource, PlatformTransactionManager application) {
		this.applicationDataSource = Objects.requireNonNull(applicationDataSource, "applicationDataSource must not be null");
		this.application = Objects.requireNonNull(application, "application must not be null");
	}

	/**
	 * Returns the transaction manager of a store's {@code DataSource}.
	 * @param storeDataSource the store's {@code DataSource}
	 * @return the application's, or one of the store's own
	 */
	public PlatformTransactionManager of(DataSource storeDataSource) {
		if (storeDataSource == this.applicationDataSource) {
			return this.application;
		}
		return this.others.computeIfAbsent(storeDataSource, DataSourceTransactionManager::new);
	}

	/**
	 * Returns the registered stores other than the default one, each with its tables and its
	 * transaction manager.
	 * @param stores the registry
	 * @param tables the default store's tables, whose names every store's follow
	 * @return the stores, now
	 */
	public List<StoreAccess> others(WaybillStores stores, OutboxTables tables) {
		return stores.all()
			.stream()
			.filter((store) -> !WaybillStore.DEFAULT_NAME.equals(store.name()))
			.map((store) -> new StoreAccess(store.name(), store.dataSource(), tables.withSchema(store.schema()),
					of(store.dataSource())))
			.toList();
	}

}
