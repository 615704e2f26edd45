package dev.waybill.kernel;

import java.util.Objects;

/**
 * The names of the tables Waybill's changelog creates beside the three core ones: the schedules
 * of recurring messages, the message archive and the replay jobs. Each is named after a core
 * table ({@code <outbox state table>_schedule}, {@code <outbox message table>_archive},
 * {@code <outbox state table>_replay}), so it follows {@code waybill.tables.*} and several table
 * sets can share a schema.
 *
 * @param tables the core tables
 * @since 0.1
 */
public record AuxiliaryTables(OutboxTables tables) {

	/**
	 * Checks that every derived name is a valid identifier.
	 * @throws IllegalArgumentException naming the table whose name is too long
	 */
	public AuxiliaryTables {
		Objects.requireNonNull(tables, "tables must not be null");
		SqlIdentifiers.require("schedule table", tables.outboxState() + "_schedule");
		SqlIdentifiers.require("replay job table", tables.outboxState() + "_replay");
		SqlIdentifiers.require("archive table", tables.outboxMessage() + "_archive");
	}

	/**
	 * Returns the schema-qualified schedule table.
	 * @return e.g. {@code waybill.outbox_state_schedule}
	 */
	public String qualifiedSchedule() {
		return this.tables.schema() + "." + this.tables.outboxState() + "_schedule";
	}

	/**
	 * Returns the schema-qualified replay job table.
	 * @return e.g. {@code waybill.outbox_state_replay}
	 */
	public String qualifiedReplay() {
		return this.tables.schema() + "." + this.tables.outboxState() + "_replay";
	}

	/**
	 * Returns the schema-qualified message archive table.
	 * @return e.g. {@code waybill.outbox_message_archive}
	 */
	public String qualifiedArchive() {
		return this.tables.schema() + "." + this.tables.outboxMessage() + "_archive";
	}

}
