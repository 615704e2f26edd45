package dev.waybill.retention.internal;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.OutboxTables;

/**
 * The purge's SQL. Each statement selects at most {@code LIMIT} eligible rows through one of the
 * partial indexes Waybill's changelog creates for retention, locks them with
 * {@code FOR UPDATE SKIP LOCKED} (rows a relay or consumer holds are skipped, never waited on),
 * and deletes exactly those by primary key or {@code ctid}. Ages are measured on the database's
 * clock, so hosts with skewed clocks agree. Parameters: the age in milliseconds, then the limit.
 */
final class RetentionSql {

	private static final String AGE = "now() - ? * interval '1 millisecond'";

	/** Deletes scopes by id and reports {@code count, sum(message_count)}; messages go by the cascade. */
	private static final String DELETE_SCOPES = """
			WITH purged AS (
			  DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT s.id FROM %1$s s
			    WHERE %3$s
			    ORDER BY %4$s
			    LIMIT ? FOR UPDATE OF s SKIP LOCKED))
			  RETURNING message_count)
			SELECT count(*), coalesce(sum(message_count), 0) FROM purged""";

	/** Deletes inbox rows by ctid (stable here: the rows are locked) that no outbox scope refers to. */
	private static final String DELETE_INBOX = """
			DELETE FROM %2$s WHERE ctid = ANY(ARRAY(
			  SELECT i.ctid FROM %2$s i
			  WHERE %3$s
			    AND NOT EXISTS (SELECT 1 FROM %1$s s
			                    WHERE s.inbound_message_id = i.message_id AND s.consumer_id = i.consumer_id)
			  ORDER BY %4$s
			  LIMIT ? FOR UPDATE OF i SKIP LOCKED))""";

	/**
	 * Deletes the published consumer scopes (redeliveries, the forward to the error queue) of inbox
	 * rows that will not be processed, selected over one of the inbox's partial indexes (%3$s: the
	 * row's predicate, %4$s its age column) and the consumer-outbox index. The inbox row is locked
	 * too, so a delivery or an operator working on it is skipped, never raced. Parameters: the inbox
	 * row's age, the scope's age, the limit.
	 */
	private static final String DELETE_SCOPES_OF_INBOX = """
			WITH purged AS (
			  DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT s.id FROM %2$s i
			    JOIN %1$s s ON s.inbound_message_id = i.message_id AND s.consumer_id = i.consumer_id
			    WHERE %3$s AND %4$s < %5$s
			      AND s.inbound_message_id IS NOT NULL AND s.status = 'published' AND s.published_at < %5$s
			    ORDER BY %4$s
			    LIMIT ? FOR UPDATE OF s, i SKIP LOCKED))
			  RETURNING message_count)
			SELECT count(*), coalesce(sum(message_count), 0) FROM purged""";

	/**
	 * {@link #DELETE_SCOPES} that also copies the purged scopes' messages into the archive, in the
	 * same statement: every part of it reads the same snapshot, so the messages the cascade deletes
	 * are still there to copy.
	 */
	private static final String ARCHIVE_SCOPES = """
			WITH purged AS (
			  DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT s.id FROM %1$s s
			    WHERE %3$s
			    ORDER BY %4$s
			    LIMIT ? FOR UPDATE OF s SKIP LOCKED))
			  RETURNING id, message_count, published_at),
			archived AS (
			  INSERT INTO %5$s (sequence_number, outbox_id, message_id, destination, routing_key, message_type,
			                    content_type, headers, body, correlation_id, conversation_id, source_host, created_at,
			                    published_at)
			  SELECT m.sequence_number, m.outbox_id, m.message_id, m.destination, m.routing_key, m.message_type,
			         m.content_type, m.headers, m.body, m.correlation_id, m.conversation_id, m.source_host, m.created_at,
			         p.published_at
			  FROM %6$s m JOIN purged p ON p.id = m.outbox_id)
			SELECT count(*), coalesce(sum(message_count), 0) FROM purged""";

	/**
	 * Deletes archived messages older than the age (over the archive's BRIN index), except those a
	 * replay job that is running or paused has still to read (%2$s: {@link #NOT_AWAITED_BY_REPLAY}).
	 */
	private static final String PURGE_ARCHIVE = """
			DELETE FROM %1$s WHERE sequence_number = ANY(ARRAY(
			  SELECT sequence_number FROM %1$s WHERE archived_at < now() - ? * interval '1 millisecond'
			    AND %2$s LIMIT ?))""";

	/**
	 * A message (sequence number %1$s) that no unfinished replay job (%2$s: the job table) has still
	 * to read: below the cursor of every running or paused job, or above the upper bound of all of
	 * them. Both bounds are uncorrelated sub-selects of the small job table, evaluated once per
	 * statement; without such a job every message qualifies. Without the bounds, retention would
	 * empty the archive under a running replay, which would complete with a fraction of its messages.
	 */
	private static final String NOT_AWAITED_BY_REPLAY = "(%1$s <= coalesce((SELECT min(last_sequence) FROM %2$s "
			+ "WHERE status IN ('running', 'paused')), 9223372036854775807) OR %1$s > coalesce((SELECT max(upper_sequence) "
			+ "FROM %2$s WHERE status IN ('running', 'paused')), 0))";

	private static final String COMPLETED = "s.status = 'published' AND s.published_at < " + AGE
			+ " AND (s.inbound_message_id IS NULL OR NOT EXISTS (SELECT 1 FROM %1$s i "
			+ "WHERE i.message_id = s.inbound_message_id AND i.consumer_id = s.consumer_id AND i.processed_at IS NULL))";

	private static final String FAULTED = "i.faulted_at IS NOT NULL AND i.processed_at IS NULL";

	private static final String RETRYING = "i.processed_at IS NULL AND i.faulted_at IS NULL AND i.attempts > 0";

	final String completedScopes;

	final String faultedScopes;

	final String finishedScopes;

	final String abandonedScopes;

	final String abandonedInbox;

	final String deadScopes;

	final String pendingScopes;

	final String completedInbox;

	final String faultedInbox;

	final long lockKey;

	/** {@link #completedScopes} moving the messages into the archive. */
	final String archivedScopes;

	final String purgeArchive;

	RetentionSql(OutboxTables tables) {
		String state = tables.qualifiedOutboxState();
		String inbox = tables.qualifiedInboxState();
		// Scenarios 1 and 2: published, and either no inbox row (a producer scope, or a consumer
		// scope whose inbox row is gone) or a processed one. A consumer scope whose inbound message
		// is still unprocessed (a delayed retry in flight) stays.
		// Without the archive, a purged message is gone: one an unfinished replay has still to read stays.
		String replay = new AuxiliaryTables(tables).qualifiedReplay();
		String notAwaited = " AND (NOT EXISTS (SELECT 1 FROM " + replay + " WHERE status IN ('running', 'paused'))"
				+ " OR NOT EXISTS (SELECT 1 FROM " + tables.qualifiedOutboxMessage() + " m WHERE m.outbox_id = s.id AND NOT "
				+ NOT_AWAITED_BY_REPLAY.formatted("m.sequence_number", replay) + "))";
		this.completedScopes = DELETE_SCOPES.formatted(state, inbox, COMPLETED.formatted(inbox) + notAwaited,
				"s.published_at");
		// Expired and cancelled scopes are final and will never be delivered, so they go by their
		// completion time whatever their inbox row says (over the finished index).
		this.finishedScopes = DELETE_SCOPES.formatted(state, inbox,
				"s.status IN ('expired', 'cancelled') AND s.completed_at < " + AGE, "s.completed_at");
		// Faulted: terminal until an operator resets the row, so its published scopes are incomplete
		// rows too; they go first, and the faulted inbox row follows in the same batch.
		this.faultedScopes = DELETE_SCOPES_OF_INBOX.formatted(state, inbox, FAULTED, "i.faulted_at", AGE);
		// Abandoned: failed, neither processed nor faulted, and no redelivery pending (the last one
		// died, was purged as stuck, or was lost); old enough, it will not be processed any more.
		String nothingPending = " AND NOT EXISTS (SELECT 1 FROM " + state + " p WHERE p.inbound_message_id = i.message_id"
				+ " AND p.consumer_id = i.consumer_id AND p.status = 'pending')";
		this.abandonedScopes = DELETE_SCOPES_OF_INBOX.formatted(state, inbox, RETRYING + nothingPending, "i.received_at",
				AGE);
		this.deadScopes = DELETE_SCOPES.formatted(state, inbox, "s.status = 'dead' AND s.created_at < " + AGE,
				"s.created_at");
		// Over the relay's due index: a claim moves next_attempt_at forward, so a scope a relay holds
		// or is backing off is never old enough here.
		this.pendingScopes = DELETE_SCOPES.formatted(state, inbox,
				OutboxTables.pendingCondition("s") + " AND s.next_attempt_at < " + AGE + " AND s.created_at < " + AGE, "s.next_attempt_at");
		// Scenario 3: processed, and no outbox scope (scenario 2's scope goes first, in the same batch).
		this.completedInbox = DELETE_INBOX.formatted(state, inbox, "i.processed_at < " + AGE, "i.processed_at");
		this.faultedInbox = DELETE_INBOX.formatted(state, inbox, FAULTED + " AND i.faulted_at < " + AGE, "i.faulted_at");
		this.abandonedInbox = DELETE_INBOX.formatted(state, inbox, RETRYING + " AND i.received_at < " + AGE,
				"i.received_at");
		this.lockKey = lockKey(tables);
		String archive = new AuxiliaryTables(tables).qualifiedArchive();
		this.archivedScopes = ARCHIVE_SCOPES.formatted(state, inbox, COMPLETED.formatted(inbox), "s.published_at",
				archive, tables.qualifiedOutboxMessage());
		this.purgeArchive = PURGE_ARCHIVE.formatted(archive, NOT_AWAITED_BY_REPLAY.formatted("sequence_number", replay));
	}

	/**
	 * Returns the advisory lock key of the tables' retention: the same on every host and JVM, and
	 * different for another set of tables in the same database.
	 */
	static long lockKey(OutboxTables tables) {
		String name = "waybill-retention:" + tables.qualifiedOutboxState() + ":" + tables.qualifiedInboxState();
		return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
	}

}
