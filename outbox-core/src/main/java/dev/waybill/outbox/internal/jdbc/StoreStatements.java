package dev.waybill.outbox.internal.jdbc;

import java.sql.ResultSet;
import java.time.Duration;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.PostgresText;

/**
 * What the store's parts share: the tables, their statements, and the template whose statements
 * each commit on their own, never joining a transaction the calling thread has open.
 *
 * @param tables where the tables are
 * @param sql the statements over {@code tables}
 * @param autonomous runs each statement in a transaction of its own
 * @since 0.1
 */
record StoreStatements(OutboxTables tables, OutboxSql sql, JdbcTemplate autonomous) {

	/** Longer error texts are cut to this many characters. */
	static final int MAX_ERROR_LENGTH = 4000;

	/**
	 * Wakes every relay listening on the tables' channel when something became due.
	 * @param due how many scopes became due
	 * @return {@code due}
	 */
	int notifyRelays(int due) {
		if (due > 0) {
			this.autonomous.query(this.sql.notify, (ResultSet row) -> {
			}, this.tables.notifyChannel());
		}
		return due;
	}

	static void requireOwner(String leaseOwner) {
		if (leaseOwner == null || leaseOwner.isBlank()) {
			throw new IllegalArgumentException("leaseOwner must not be blank");
		}
	}

	static void requirePositive(Duration lease) {
		if (lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("lease must be positive, was " + lease);
		}
	}

	static String truncate(String error) {
		return PostgresText.column(error, MAX_ERROR_LENGTH);
	}

}
