package dev.waybill.kernel;

import java.util.Objects;
import javax.sql.DataSource;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * A registered store as Waybill's own workers (schedules, replay) work in it: its database, its
 * tables and the transaction manager its work runs in ({@link StoreTransactions}).
 *
 * @param name the store's name
 * @param dataSource the store's database
 * @param tables its tables
 * @param transactionManager the transaction manager of {@code dataSource}
 * @since 0.1
 */
public record StoreAccess(String name, DataSource dataSource, OutboxTables tables,
		PlatformTransactionManager transactionManager) {

	/**
	 * Checks the components.
	 */
	public StoreAccess {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		Objects.requireNonNull(tables, "tables must not be null");
		Objects.requireNonNull(transactionManager, "transactionManager must not be null");
	}

}
