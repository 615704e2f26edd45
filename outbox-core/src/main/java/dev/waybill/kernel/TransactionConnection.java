package dev.waybill.kernel;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.DatabaseFailures.ConnectionState;

/**
 * The JDBC connection of one transaction (an inbox delivery's, a schedule tick's), watched so that
 * a failure can be told apart from a lost connection: {@link #check()} asks the connection itself
 * while the transaction runs, and a commit or rollback that fails makes it ask before the
 * transaction manager releases the connection. Created before the transaction,
 * {@link #attach(DataSource) attached} inside it, read after it.
 */
public final class TransactionConnection implements TransactionSynchronization {

	private static final int VALIDITY_TIMEOUT_SECONDS = 2;

	private volatile @Nullable Connection connection;

	private volatile ConnectionState state = ConnectionState.UNKNOWN;

	/**
	 * Watches the connection the current transaction holds for {@code dataSource}; call inside the
	 * transaction.
	 * @param dataSource the DataSource whose connection the transaction holds
	 */
	public void attach(DataSource dataSource) {
		if (TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder) {
			this.connection = holder.getConnection();
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.registerSynchronization(this);
			}
		}
	}

	/**
	 * Asks the connection whether it still works and remembers the answer.
	 * @return the answer, {@link ConnectionState#UNKNOWN} when no connection is attached
	 */
	public ConnectionState check() {
		Connection connection = this.connection;
		if (connection == null) {
			return ConnectionState.UNKNOWN;
		}
		ConnectionState state;
		try {
			state = connection.isValid(VALIDITY_TIMEOUT_SECONDS) ? ConnectionState.VALID : ConnectionState.INVALID;
		}
		catch (SQLException | RuntimeException ex) {
			state = ConnectionState.INVALID;
		}
		this.state = state;
		return state;
	}

	/**
	 * Returns the last answer of {@link #check()}, {@link ConnectionState#UNKNOWN} when never asked.
	 */
	public ConnectionState state() {
		return this.state;
	}

	@Override
	public void afterCompletion(int status) {
		// Unknown: the commit or the rollback failed. The connection is still the transaction's here.
		if (status == STATUS_UNKNOWN) {
			check();
		}
		this.connection = null;
	}

}
