package dev.waybill.outbox.internal.jdbc;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * Waybill's role may not create or change what its schema lacks at start-up (SQLState 42501): the
 * schema is missing and the role may not create schemas, or a changeset of Waybill's changelog is
 * not applied yet and the role neither owns the tables nor may create in the schema. A role that
 * only reads and writes Waybill's tables starts once the changelog is applied.
 *
 * @since 0.1
 */
public final class SchemaPrivilegeException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/** The SQLState of a refused privilege, {@code insufficient_privilege}. */
	static final String INSUFFICIENT_PRIVILEGE = "42501";

	private final String schema;

	private final String reason;

	private final String description;

	SchemaPrivilegeException(String schema, @Nullable String role, String what, SQLException refusal, Throwable cause) {
		this(schema, "Waybill could not " + what + " in schema '" + schema + "'"
				+ ((role != null) ? " as role '" + role + "'" : "") + ": " + refusal.getMessage() + " (SQLState "
				+ refusal.getSQLState() + ").", refusal.getMessage() + " (SQLState " + refusal.getSQLState() + ")", cause);
	}

	private SchemaPrivilegeException(String schema, String description, String reason, Throwable cause) {
		super(description + " " + FIX, cause);
		this.schema = schema;
		this.description = description;
		this.reason = reason;
	}

	/**
	 * Returns what was refused, without what to do about it.
	 * @return the description
	 */
	public String getDescription() {
		return this.description;
	}

	/**
	 * Returns what to do about it.
	 * @return the ways out
	 */
	public String getAction() {
		return FIX;
	}

	private static final String FIX = "Apply Waybill's changelog with a role that owns the schema (start the service "
			+ "once as that role, or include db/changelog/waybill/waybill-changelog.yaml in your own Liquibase changelog "
			+ "with waybill.liquibase.enabled=false), or grant this role CREATE on the database (a missing schema) or "
			+ "on the schema; a role with only USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on its tables "
			+ "starts once the changelog is applied (see the README's \"A schema your DBA owns\").";

	/**
	 * Returns the schema Waybill was to apply.
	 * @return the schema's name
	 */
	public String getSchema() {
		return this.schema;
	}

	/**
	 * Returns the database's own words and the SQLState.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Returns the refused privilege in the cause chain of {@code failure}: the innermost
	 * {@link SQLException} with SQLState 42501.
	 * @param failure a failure to apply the schema
	 * @return the refusal, or {@literal null} when the failure is not one
	 */
	static @Nullable SQLException refusal(Throwable failure) {
		SQLException refusal = null;
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SQLException sql && INSUFFICIENT_PRIVILEGE.equals(sql.getSQLState())) {
				refusal = sql;
			}
		}
		return refusal;
	}

}
