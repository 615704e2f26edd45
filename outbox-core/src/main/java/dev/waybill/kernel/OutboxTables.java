package dev.waybill.kernel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where Waybill's tables live: a schema and the names of its three tables, each a validated SQL
 * identifier (see {@link SqlIdentifiers}).
 *
 * @param schema the schema
 * @param outboxState the outbox state table
 * @param outboxMessage the outbox message table
 * @param inboxState the inbox state table
 * @since 0.1
 */
public record OutboxTables(String schema, String outboxState, String outboxMessage, String inboxState) {

	private static final String HISTORY_SUFFIX = "_changelog";

	private static final String LOCK_SUFFIX = "_changelog_lock";

	/** The default schema. */
	public static final String DEFAULT_SCHEMA = "waybill";

	/**
	 * Validates every name.
	 * @throws IllegalArgumentException naming the invalid name and the rule it breaks
	 */
	public OutboxTables {
		SqlIdentifiers.require("schema", schema);
		SqlIdentifiers.require("outbox state table", outboxState);
		SqlIdentifiers.require("outbox message table", outboxMessage);
		SqlIdentifiers.require("inbox state table", inboxState);
		if ((outboxState + LOCK_SUFFIX).length() > SqlIdentifiers.MAX_LENGTH) {
			throw new IllegalArgumentException("outbox state table '" + outboxState + "' must be at most "
					+ (SqlIdentifiers.MAX_LENGTH - LOCK_SUFFIX.length()) + " characters long, so that its Liquibase "
					+ "history table '" + outboxState + LOCK_SUFFIX + "' is a valid name");
		}
		String channel = schema + "_" + outboxState;
		if (channel.length() > SqlIdentifiers.MAX_LENGTH) {
			throw new IllegalArgumentException("schema '" + schema + "' and outbox state table '" + outboxState
					+ "' name the notification channel '" + channel + "', which is over "
					+ SqlIdentifiers.MAX_LENGTH + " characters; shorten one of them");
		}
	}

	/**
	 * Returns the condition {@code status = 'pending'} on the outbox state table, written so that
	 * PostgreSQL reads it through indexes: the ready index (pending, not held) OR the ordering index
	 * (unpublished keyed scopes, where every held scope is). There is no index of all pending scopes:
	 * it would cost every write an index entry for what these two already hold.
	 * @param alias the alias of the outbox state table in the statement
	 * @return the condition, in parentheses
	 * @since 0.1
	 */
	public static String pendingCondition(String alias) {
		return ("(%1$s.status = 'pending' AND NOT %1$s.ordering_held OR %1$s.status = 'pending' AND %1$s.ordering_held "
				+ "AND %1$s.ordering_key IS NOT NULL)").formatted(alias);
	}

	/**
	 * Returns the default tables in the given schema.
	 * @param schema the schema
	 * @return the tables
	 */
	public static OutboxTables inSchema(String schema) {
		return new OutboxTables(schema, "outbox_state", "outbox_message", "inbox_state");
	}

	/**
	 * Returns the same tables in another schema: another store's (see
	 * {@link dev.waybill.outbox.store.WaybillStore#schema()}).
	 * @param otherSchema the schema
	 * @return the tables of that name there
	 */
	public OutboxTables withSchema(String otherSchema) {
		return new OutboxTables(otherSchema, this.outboxState, this.outboxMessage, this.inboxState);
	}

	/**
	 * Returns the default tables in the default schema {@code waybill}.
	 * @return the tables
	 */
	public static OutboxTables defaults() {
		return inSchema(DEFAULT_SCHEMA);
	}

	/**
	 * Returns the schema-qualified outbox state table.
	 * @return e.g. {@code waybill.outbox_state}
	 */
	public String qualifiedOutboxState() {
		return this.schema + "." + this.outboxState;
	}

	/**
	 * Returns the schema-qualified outbox message table.
	 * @return e.g. {@code waybill.outbox_message}
	 */
	public String qualifiedOutboxMessage() {
		return this.schema + "." + this.outboxMessage;
	}

	/**
	 * Returns the schema-qualified inbox state table.
	 * @return e.g. {@code waybill.inbox_state}
	 */
	public String qualifiedInboxState() {
		return this.schema + "." + this.inboxState;
	}

	/**
	 * Returns the schema-qualified sequence that orders the scopes of one ordering key:
	 * {@code <schema>.<outbox state table>_ordering_seq}.
	 * @return e.g. {@code waybill.outbox_state_ordering_seq}
	 * @since 0.1
	 */
	public String orderingSequence() {
		return this.schema + "." + this.outboxState + "_ordering_seq";
	}

	/**
	 * Returns the channel that committed outbox inserts are announced on with {@code NOTIFY}:
	 * {@code <schema>_<outbox state table>}.
	 * @return the channel name
	 */
	public String notifyChannel() {
		return this.schema + "_" + this.outboxState;
	}

	/**
	 * Returns the table in which Liquibase records which of Waybill's changesets it applied to
	 * these tables: {@code <outbox state table>_changelog}, so several table sets can share a schema.
	 * @return the unqualified table name
	 */
	public String changelogTable() {
		return this.outboxState + HISTORY_SUFFIX;
	}

	/**
	 * Returns the table Liquibase locks while it applies the changelog: {@code <outbox state table>_changelog_lock}.
	 * @return the unqualified table name
	 */
	public String changelogLockTable() {
		return this.outboxState + LOCK_SUFFIX;
	}

	/**
	 * Returns the Liquibase changelog parameters that create these tables.
	 * @return parameter name to value
	 */
	public Map<String, String> changelogParameters() {
		Map<String, String> parameters = new LinkedHashMap<>();
		parameters.put("waybill.schema", this.schema);
		parameters.put("waybill.outbox-state-table", this.outboxState);
		parameters.put("waybill.outbox-message-table", this.outboxMessage);
		parameters.put("waybill.inbox-state-table", this.inboxState);
		return parameters;
	}

}
