package dev.waybill.outbox.internal.jdbc;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * Waybill could not connect to its database to apply its schema at start-up: the database is down
 * or unreachable, does not exist, or refused the credentials.
 */
public final class SchemaDatabaseUnreachableException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String schema;

	SchemaDatabaseUnreachableException(String schema, SQLException cause) {
		super("Waybill could not connect to its database to apply its schema '" + schema + "': " + reason(cause),
				cause);
		this.schema = schema;
	}

	/**
	 * Returns the schema Waybill was to apply.
	 * @return the schema's name
	 */
	public String getSchema() {
		return this.schema;
	}

	/**
	 * Returns the driver's own words: the innermost SQL failure's message and SQLState (a pool
	 * wraps the driver's exception in one of its own, "Connection is not available").
	 * @return the reason
	 */
	public String getReason() {
		return reason((SQLException) getCause());
	}

	/**
	 * Returns the SQLState of the innermost SQL failure, the driver's.
	 * @return the state, or {@code null} when the driver gave none
	 */
	public @Nullable String getSqlState() {
		return innermost((SQLException) getCause()).getSQLState();
	}

	private static SQLException innermost(SQLException failure) {
		SQLException innermost = failure;
		for (Throwable cause = failure.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				innermost = sql;
			}
		}
		return innermost;
	}

	private static String reason(SQLException failure) {
		SQLException innermost = innermost(failure);
		String state = (innermost.getSQLState() != null) ? " (SQLState " + innermost.getSQLState() + ")" : "";
		return innermost.getMessage() + state;
	}

}
