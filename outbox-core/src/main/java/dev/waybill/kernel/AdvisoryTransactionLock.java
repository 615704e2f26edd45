package dev.waybill.kernel;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL advisory lock held across other work without relying on a database session: the
 * lock is taken with {@code pg_advisory_xact_lock} in a transaction of a connection of its own,
 * which stays open until {@link #close()} rolls it back. A transaction-mode pooler (PgBouncer's
 * {@code pool_mode = transaction}) keeps one server connection for an open transaction, so the lock
 * means the same through it as on PostgreSQL directly, whereas a session lock taken through it stays
 * with whichever server connection ran it, and excludes no one. The work the lock guards runs on
 * other connections; if the holder's connection dies (its process, the network, the database's
 * {@code idle_in_transaction_session_timeout}), PostgreSQL releases the lock at once.
 *
 * @since 0.1
 */
public final class AdvisoryTransactionLock implements AutoCloseable {

	/** How long {@link #acquire} waits between tries. */
	static final long RETRY_MILLIS = 100;

	private final Connection connection;

	private AdvisoryTransactionLock(Connection connection) {
		this.connection = connection;
	}

	/**
	 * Waits for the lock and returns it held. It waits by trying again every
	 * {@link #RETRY_MILLIS} ms between transactions, never inside one: behind a transaction-mode
	 * pooler a waiting transaction would keep one of its few server connections, and waiters
	 * could take all of them from the holder's own work.
	 * @param dataSource where the holding connection comes from
	 * @param key the lock's key
	 * @return the held lock, to be closed when the work is done
	 * @throws SQLException when no connection could be had or the statement failed
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	public static AdvisoryTransactionLock acquire(DataSource dataSource, long key)
			throws SQLException, InterruptedException {
		while (true) {
			AdvisoryTransactionLock lock = tryAcquire(dataSource, key);
			if (lock != null) {
				return lock;
			}
			Thread.sleep(RETRY_MILLIS);
		}
	}

	/**
	 * Takes the lock if no one holds it.
	 * @param dataSource where the holding connection comes from
	 * @param key the lock's key
	 * @return the held lock, to be closed when the work is done, or {@literal null} when another
	 * transaction holds it
	 * @throws SQLException when no connection could be had or the statement failed
	 */
	public static @Nullable AdvisoryTransactionLock tryAcquire(DataSource dataSource, long key) throws SQLException {
		Connection connection = dataSource.getConnection();
		try {
			connection.setAutoCommit(false);
			try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_xact_lock(?)")) {
				statement.setLong(1, key);
				try (ResultSet result = statement.executeQuery()) {
					if (result.next() && result.getBoolean(1)) {
						return new AdvisoryTransactionLock(connection);
					}
				}
			}
			release(connection);
			return null;
		}
		catch (SQLException | RuntimeException ex) {
			release(connection);
			throw ex;
		}
	}

	/**
	 * Tells whether the lock is still held: asks the holding connection, which also keeps its
	 * transaction from counting as idle for {@code idle_in_transaction_session_timeout}.
	 * @return whether the holding transaction still answers
	 */
	public boolean stillHeld() {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("SELECT 1");
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	/**
	 * Releases the lock (rolls the holding transaction back, which wrote nothing) and returns the
	 * connection.
	 */
	@Override
	public void close() {
		release(this.connection);
	}

	private static void release(Connection connection) {
		try {
			try {
				if (!connection.getAutoCommit()) {
					connection.rollback();
					connection.setAutoCommit(true);
				}
			}
			finally {
				connection.close();
			}
		}
		catch (SQLException ex) {
			// A connection that cannot roll back is gone, and its transaction's lock with it.
		}
	}

}
