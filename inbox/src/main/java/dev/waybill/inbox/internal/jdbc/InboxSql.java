package dev.waybill.inbox.internal.jdbc;

import dev.waybill.kernel.OutboxTables;

/**
 * The statements {@link InboxStore} runs on the inbox table, built once for its table name.
 */
final class InboxSql {

	final String receive;

	final String receiveAll;

	final String countReceipts;

	final String markProcessed;

	final String markProcessedWithNote;

	final String recordFailure;

	final String finalState;

	final String clearFault;

	final String received;

	InboxSql(OutboxTables tables) {
		String table = tables.qualifiedInboxState();
		// The upsert locks the row; a concurrent delivery of the same message waits here until the
		// first transaction ends, then sees its processed_at or faulted_at.
		this.receive = "INSERT INTO " + table + " AS inbox (message_id, consumer_id) VALUES (?, ?) "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1 "
				+ "RETURNING inbox.processed_at IS NOT NULL AS processed, inbox.faulted_at IS NOT NULL AS faulted, "
				+ "inbox.attempts";
		this.received = "SELECT EXISTS (SELECT 1 FROM " + table + " WHERE message_id = ? AND consumer_id = ?)";
		// Processed and faulted exclude each other: a row reaches one final state only.
		this.markProcessed = "UPDATE " + table + " SET processed_at = now() "
				+ "WHERE message_id = ? AND consumer_id = ? AND processed_at IS NULL AND faulted_at IS NULL";
		// receive and markProcessed for many rows at once, in key order so that two batches lock
		// their common rows in the same order. A row processed or faulted already is locked but
		// neither changed nor returned (countReceipts counts it).
		this.receiveAll = "INSERT INTO " + table + " AS inbox (message_id, consumer_id, receive_count, processed_at) "
				+ "SELECT *, now() FROM unnest(?::uuid[], ?::text[], ?::integer[]) ORDER BY 1, 2 "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE "
				+ "SET receive_count = inbox.receive_count + excluded.receive_count, processed_at = excluded.processed_at "
				+ "WHERE inbox.processed_at IS NULL AND inbox.faulted_at IS NULL "
				+ "RETURNING inbox.message_id, inbox.consumer_id, inbox.attempts";
		this.countReceipts = "UPDATE " + table + " AS inbox SET receive_count = inbox.receive_count + t.receipts "
				+ "FROM unnest(?::uuid[], ?::text[], ?::integer[]) AS t(message_id, consumer_id, receipts) "
				+ "WHERE inbox.message_id = t.message_id AND inbox.consumer_id = t.consumer_id "
				+ "RETURNING inbox.message_id, inbox.consumer_id, inbox.processed_at IS NOT NULL AS processed, "
				+ "inbox.faulted_at IS NOT NULL AS faulted, inbox.attempts";
		this.markProcessedWithNote = "UPDATE " + table + " SET processed_at = now(), last_error = ? "
				+ "WHERE message_id = ? AND consumer_id = ? AND processed_at IS NULL AND faulted_at IS NULL";
		// Inserts the row when the failed transaction rolled its insert back; leaves a row that a
		// concurrent delivery processed or faulted meanwhile alone (no row is returned then).
		this.recordFailure = "INSERT INTO " + table + " AS inbox (message_id, consumer_id, attempts, last_error, faulted_at) "
				+ "VALUES (?, ?, 1, ?, CASE WHEN 1 >= ? THEN now() END) "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1, "
				+ "attempts = inbox.attempts + 1, last_error = excluded.last_error, "
				+ "faulted_at = CASE WHEN inbox.attempts + 1 >= ? THEN now() END "
				+ "WHERE inbox.processed_at IS NULL AND inbox.faulted_at IS NULL "
				+ "RETURNING inbox.attempts, inbox.faulted_at IS NOT NULL AS faulted";
		this.finalState = "SELECT processed_at IS NOT NULL AS processed, faulted_at IS NOT NULL AS faulted, attempts "
				+ "FROM " + table + " WHERE message_id = ? AND consumer_id = ?";
		this.clearFault = "UPDATE " + table + " SET faulted_at = NULL, attempts = 0 "
				+ "WHERE message_id = ? AND consumer_id = ? AND faulted_at IS NOT NULL AND processed_at IS NULL";
	}

}
