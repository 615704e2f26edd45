package dev.waybill.retention.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.RetentionResult;

/**
 * One retention batch: one transaction that deletes at most {@code limit} rows from each table,
 * what {@link RetentionSettings} makes eligible, in the order that keeps a consumer scope and its
 * inbox row together (see {@link RetentionWorker}). Rolled back whole when a statement fails.
 *
 * @since 0.1
 */
final class RetentionBatch {

	/** A batch that meets a lock the skip did not avoid (say, a cascade) fails instead of waiting long. */
	private static final String LOCK_TIMEOUT = "SET LOCAL lock_timeout = '5s'";

	private final RetentionSql sql;

	private final RetentionSettings settings;

	RetentionBatch(RetentionSql sql, RetentionSettings settings) {
		this.sql = sql;
		this.settings = settings;
	}

	/**
	 * Runs and commits one batch on {@code connection} (not in auto-commit).
	 * @return what it purged, as one batch
	 */
	RetentionResult run(Connection connection, int limit, RetentionArchive archive) throws SQLException {
		try {
			try (Statement statement = connection.createStatement()) {
				statement.execute(LOCK_TIMEOUT);
			}
			long[] scopes = { 0, 0 };
			long inbox = 0;
			if (this.settings.purgeCompleted()) {
				add(scopes, deleteScopes(connection, archive.enabled() ? this.sql.archivedScopes : this.sql.completedScopes,
						limit, this.settings.completedAfter()));
				add(scopes, deleteScopes(connection, this.sql.finishedScopes, limit - scopes[0],
						this.settings.completedAfter()));
			}
			// Purged even when archiving is switched off again, so an old archive does not stay for ever.
			long archivePurged = deleteInbox(connection, this.sql.purgeArchive, limit, archive.keptFor());
			Duration pendingAfter = this.settings.purgePendingAfter();
			if (this.settings.purgeIncomplete()) {
				Duration incomplete = this.settings.incompleteAfter();
				add(scopes, deleteScopes(connection, this.sql.deadScopes, limit - scopes[0], incomplete));
				if (pendingAfter != null) {
					add(scopes, deleteScopes(connection, this.sql.pendingScopes, limit - scopes[0], pendingAfter,
							pendingAfter));
				}
				// After the dead and stuck ones, so that an inbox row they leave without a pending
				// redelivery goes with the rest of its scopes in this same batch.
				add(scopes, deleteScopes(connection, this.sql.faultedScopes, limit - scopes[0], inboxAge(incomplete),
						incomplete));
				add(scopes, deleteScopes(connection, this.sql.abandonedScopes, limit - scopes[0], inboxAge(incomplete),
						incomplete));
			}
			if (this.settings.purgeCompleted()) {
				inbox += deleteInbox(connection, this.sql.completedInbox, limit, inboxAge(this.settings.completedAfter()));
			}
			if (this.settings.purgeIncomplete()) {
				inbox += deleteInbox(connection, this.sql.faultedInbox, limit - inbox,
						inboxAge(this.settings.incompleteAfter()));
				inbox += deleteInbox(connection, this.sql.abandonedInbox, limit - inbox,
						inboxAge(this.settings.incompleteAfter()));
			}
			connection.commit();
			return new RetentionResult(false, 1, scopes[0], scopes[1], inbox, archivePurged);
		}
		catch (SQLException | RuntimeException ex) {
			connection.rollback();
			throw ex;
		}
	}

	/** No inbox row younger than {@link RetentionSettings#inboxMinimumAge()} goes. */
	private Duration inboxAge(Duration age) {
		Duration minimum = this.settings.inboxMinimumAge();
		return (age.compareTo(minimum) < 0) ? minimum : age;
	}

	private static void add(long[] sum, long[] more) {
		sum[0] += more[0];
		sum[1] += more[1];
	}

	/** Deletes scopes; returns how many scopes and how many of their messages went. */
	private static long[] deleteScopes(Connection connection, String sql, long limit, Duration... ages)
			throws SQLException {
		if (limit <= 0) {
			return new long[] { 0, 0 };
		}
		try (PreparedStatement statement = prepare(connection, sql, limit, ages);
				ResultSet result = statement.executeQuery()) {
			result.next();
			return new long[] { result.getLong(1), result.getLong(2) };
		}
	}

	private static long deleteInbox(Connection connection, String sql, long limit, Duration age) throws SQLException {
		if (limit <= 0) {
			return 0;
		}
		try (PreparedStatement statement = prepare(connection, sql, limit, age)) {
			return statement.executeUpdate();
		}
	}

	private static PreparedStatement prepare(Connection connection, String sql, long limit, Duration... ages)
			throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		int index = 1;
		for (Duration age : ages) {
			statement.setLong(index++, age.toMillis());
		}
		statement.setLong(index, limit);
		return statement;
	}

}
