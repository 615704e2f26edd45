package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Settles claimed scopes and keeps their leases: published, retried later, dead, expired,
 * released or renewed, each statement fenced by the lease owner so that a relay whose lease was
 * taken over changes nothing.
 *
 * @since 0.1
 */
final class ScopeSettlement {

	private final OutboxSql sql;

	private final JdbcTemplate jdbc;

	private final OrderingHeads heads;

	ScopeSettlement(StoreStatements statements, OrderingHeads heads) {
		this.sql = statements.sql();
		this.jdbc = statements.autonomous();
		this.heads = heads;
	}

	int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		StoreStatements.requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		Object[] ids = scopeIds.toArray();
		List<String> keys = new ArrayList<>();
		List<String> busy = new ArrayList<>();
		int[] marked = { 0 };
		this.jdbc.query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.markPublished);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setString(2, leaseOwner);
			return statement;
		}, (ResultSet row) -> {
			marked[0]++;
			String key = row.getString(1);
			if (key != null) {
				keys.add(key);
				if (!row.getBoolean(2)) {
					busy.add(key);
				}
			}
		});
		this.heads.promoteAfterPublish(keys, busy);
		return marked[0];
	}

	int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		StoreStatements.requireOwner(leaseOwner);
		StoreStatements.requirePositive(lease);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.jdbc.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.renew);
			statement.setLong(1, lease.toMillis());
			statement.setLong(2, lease.toMillis());
			statement.setArray(3, connection.createArrayOf("uuid", scopeIds.toArray()));
			statement.setString(4, leaseOwner);
			return statement;
		});
	}

	boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		StoreStatements.requireOwner(leaseOwner);
		return this.jdbc.update(this.sql.retryLater, Math.max(0, retryDelay.toMillis()), StoreStatements.truncate(error),
				scopeId, leaseOwner) == 1;
	}

	boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		StoreStatements.requireOwner(leaseOwner);
		return this.jdbc.update(this.sql.deadLetter, StoreStatements.truncate(error), scopeId, leaseOwner) == 1;
	}

	int expire(String leaseOwner, Collection<UUID> scopeIds) {
		StoreStatements.requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return updateFenced(this.sql.expire, scopeIds.toArray(), leaseOwner);
	}

	int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		StoreStatements.requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.jdbc.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.release);
			statement.setLong(1, Math.max(0, delay.toMillis()));
			statement.setArray(2, connection.createArrayOf("uuid", scopeIds.toArray()));
			statement.setString(3, leaseOwner);
			return statement;
		});
	}

	/** Runs a statement whose parameters are the scopes' ids and their lease owner. */
	private int updateFenced(String sql, Object[] ids, String leaseOwner) {
		return this.jdbc.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(sql);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setString(2, leaseOwner);
			return statement;
		});
	}

}
