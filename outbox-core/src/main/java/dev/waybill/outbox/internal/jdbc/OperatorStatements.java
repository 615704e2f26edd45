package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.OutboxStats;

/**
 * What an operator asks of the outbox: redrive dead scopes (waking the relays for them) and read
 * the backlog.
 *
 * @since 0.1
 */
final class OperatorStatements {

	private final StoreStatements statements;

	OperatorStatements(StoreStatements statements) {
		this.statements = statements;
	}

	int redrive(Collection<UUID> scopeIds) {
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.statements.notifyRelays(this.statements.autonomous().update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.statements.sql().redriveIds);
			statement.setArray(1, connection.createArrayOf("uuid", scopeIds.toArray()));
			return statement;
		}));
	}

	int redriveDestination(String destination) {
		return this.statements.notifyRelays(
				this.statements.autonomous().update(this.statements.sql().redriveDestination, destination));
	}

	int redriveAll() {
		return this.statements.notifyRelays(this.statements.autonomous().update(this.statements.sql().redriveAll));
	}

	OutboxStats stats() {
		return Objects.requireNonNull(this.statements.autonomous().queryForObject(this.statements.sql().stats,
				(row, number) -> stats(row, 1)));
	}

	/** Reads the columns of {@link OutboxSql#stats(dev.waybill.kernel.OutboxTables)}, the first at {@code first}. */
	static OutboxStats stats(ResultSet row, int first) throws SQLException {
		return new OutboxStats(row.getLong(first), row.getLong(first + 1), row.getLong(first + 2), row.getLong(first + 3),
				nullableInstant(row, first + 4),
				(row.getObject(first + 5) != null) ? Duration.ofMillis(row.getLong(first + 5)) : null);
	}

	private static @Nullable Instant nullableInstant(ResultSet row, int column) throws SQLException {
		OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

}
