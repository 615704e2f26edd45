package dev.waybill.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import dev.waybill.outbox.test.TestPostgres;

/**
 * Reads the WAL insert position, the database's commit count and the row counters of a schema's
 * tables on a connection of its own, and gives the {@link DatabaseWork} between two readings.
 * Other sessions report their table and commit counters to the statistics with a delay (a backend
 * flushes them at most once a second, an idle one within 10 s), so {@link #read} first waits
 * {@link #STATS_SETTLE_MILLIS}; the WAL position needs no wait.
 */
final class WorkMeter implements AutoCloseable {

	/** PostgreSQL 15's idle-backend statistics flush interval (10 s), and a margin. */
	static final long STATS_SETTLE_MILLIS = 11_000;

	private static final String ROWS = """
			SELECT coalesce(sum(n_tup_ins), 0), coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0),
			       coalesce(sum(n_tup_del), 0),
			       coalesce(sum((n_tup_ins + n_tup_upd - n_tup_hot_upd)
			                    * (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid)), 0),
			       coalesce(sum(n_dead_tup), 0)
			FROM pg_stat_user_tables t WHERE schemaname = ?""";

	private final Connection connection;

	/**
	 * Opens the meter's connection.
	 * @param database the private database
	 */
	WorkMeter(TestPostgres database) throws SQLException {
		this.connection = database.connect();
	}

	/**
	 * Waits for the statistics of the last window to arrive, then reads the counters.
	 * @param schema the schema whose tables' rows count
	 * @return the reading
	 */
	Reading read(String schema) throws SQLException, InterruptedException {
		Thread.sleep(STATS_SETTLE_MILLIS);
		try (Statement statement = this.connection.createStatement()) {
			// This session's own counters; the others' arrived during the wait.
			statement.execute("SELECT pg_stat_force_next_flush()");
		}
		long commits;
		String lsn;
		try (Statement statement = this.connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT pg_current_wal_insert_lsn()::text, xact_commit "
						+ "FROM pg_stat_database WHERE datname = current_database()")) {
			result.next();
			lsn = result.getString(1);
			commits = result.getLong(2);
		}
		try (PreparedStatement statement = this.connection.prepareStatement(ROWS)) {
			statement.setString(1, schema);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return new Reading(lsn, commits, result.getLong(1), result.getLong(2), result.getLong(3), result.getLong(4),
						result.getLong(5), result.getLong(6));
			}
		}
	}

	/**
	 * The work between two readings.
	 * @param before the earlier reading
	 * @param after the later reading
	 * @return the difference
	 */
	DatabaseWork between(Reading before, Reading after) throws SQLException {
		long walBytes;
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT pg_wal_lsn_diff(?::pg_lsn, ?::pg_lsn)::bigint")) {
			statement.setString(1, after.lsn());
			statement.setString(2, before.lsn());
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				walBytes = result.getLong(1);
			}
		}
		return new DatabaseWork(walBytes, after.commits() - before.commits(), after.inserted() - before.inserted(),
				after.updated() - before.updated(), after.hotUpdated() - before.hotUpdated(),
				after.deleted() - before.deleted(), after.indexEntries() - before.indexEntries(),
				after.deadTuples() - before.deadTuples());
	}

	@Override
	public void close() throws SQLException {
		this.connection.close();
	}

	/** The counters at one moment, cumulative but for the dead row versions the tables hold now. */
	record Reading(String lsn, long commits, long inserted, long updated, long hotUpdated, long deleted,
			long indexEntries, long deadTuples) {
	}

}
