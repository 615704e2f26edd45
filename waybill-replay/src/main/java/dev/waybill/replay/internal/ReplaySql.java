package dev.waybill.replay.internal;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.OutboxTables;

/**
 * The replay's SQL. A batch is one statement: it selects the next messages after the cursor from
 * the archive and from the published scopes still retained (a message is in exactly one of them
 * in any snapshot: retention moves it in one statement), never a copy a replay job wrote, writes
 * them as one new pending outbox scope, and returns how many it wrote and the last sequence
 * number. The caller advances the job's cursor in the same transaction.
 */
final class ReplaySql {

	/**
	 * The header every replayed copy carries, with the id of the job that wrote it: the durable mark
	 * by which no job selects a copy (its own or another job's), whether the copy is still in the
	 * outbox or archived (the archive keeps the headers), across restarts. A header needs no schema
	 * change and travels with the message through retention and the archive as it is.
	 */
	static final String REPLAY_JOB_HEADER = "waybill-replay-job";

	private static final String JOB_COLUMNS = "id, status, destination, message_type, from_time, to_time, "
			+ "target_destination, target_routing_key, keep_message_ids, batch_size, batch_interval_ms, upper_sequence, "
			+ "last_sequence, replayed, batches, created_at, updated_at, completed_at";

	private static final String SOURCE_COLUMNS = "sequence_number, message_id, destination, routing_key, message_type, "
			+ "content_type, headers, body, correlation_id, conversation_id, source_host, created_at";

	final String create;

	final String claim;

	final String find;

	final String list;

	final String advance;

	final String nextDue;

	final String setStatus;

	private final String archive;

	private final String state;

	private final String message;

	ReplaySql(OutboxTables tables) {
		AuxiliaryTables auxiliary = new AuxiliaryTables(tables);
		String job = auxiliary.qualifiedReplay();
		this.archive = auxiliary.qualifiedArchive();
		this.state = tables.qualifiedOutboxState();
		this.message = tables.qualifiedOutboxMessage();
		this.create = """
				INSERT INTO %1$s (id, status, destination, message_type, from_time, to_time, target_destination,
				  target_routing_key, keep_message_ids, batch_size, batch_interval_ms, upper_sequence)
				VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?,
				  greatest((SELECT coalesce(max(sequence_number), 0) FROM %2$s),
				           (SELECT coalesce(max(sequence_number), 0) FROM %3$s)))""".formatted(job, this.message,
				this.archive);
		this.claim = "SELECT " + JOB_COLUMNS + " FROM " + job
				+ " WHERE status = 'running' AND next_batch_at <= clock_timestamp() ORDER BY next_batch_at LIMIT 1"
				+ " FOR UPDATE SKIP LOCKED";
		this.find = "SELECT " + JOB_COLUMNS + " FROM " + job + " WHERE id = ?";
		this.list = "SELECT " + JOB_COLUMNS + " FROM " + job + " ORDER BY created_at DESC";
		this.advance = """
				UPDATE %1$s SET last_sequence = coalesce(?, last_sequence), replayed = replayed + ?, batches = batches + 1,
				  next_batch_at = clock_timestamp() + batch_interval_ms * interval '1 millisecond',
				  updated_at = clock_timestamp(),
				  status = CASE WHEN ? THEN 'completed' ELSE status END,
				  completed_at = CASE WHEN ? THEN clock_timestamp() END
				WHERE id = ?""".formatted(job);
		this.nextDue = "SELECT extract(epoch FROM (min(next_batch_at) - clock_timestamp())) * 1000 FROM " + job
				+ " WHERE status = 'running'";
		this.setStatus = "UPDATE " + job + " SET status = ?, next_batch_at = clock_timestamp(), "
				+ "updated_at = clock_timestamp() WHERE id = ? AND status = ANY(?)";
	}

	/**
	 * Returns the batch statement for a job's filters. Parameters, in order: per source (archive,
	 * then retained) the cursor, the upper bound, then the filter values, then the source limit;
	 * then the batch limit, the new scope id, whether ids are kept, the target destination (twice),
	 * the target routing key, the job id (the value of the copies' {@value #REPLAY_JOB_HEADER} header).
	 * Messages that carry that header are copies written by a replay job, never selected.
	 * @param filters the filter, e.g. {@code " AND x.destination = ?"}, over alias {@code x}
	 */
	String batch(String filters) {
		String notACopy = " AND x.headers -> '" + REPLAY_JOB_HEADER + "' IS NULL";
		String archived = "SELECT " + SOURCE_COLUMNS + " FROM " + this.archive + " x WHERE x.sequence_number > ? "
				+ "AND x.sequence_number <= ?" + notACopy + filters + " ORDER BY x.sequence_number LIMIT ?";
		String retained = "SELECT " + prefixed("x") + " FROM " + this.message + " x JOIN " + this.state
				+ " s ON s.id = x.outbox_id WHERE s.status = 'published' AND x.sequence_number > ? "
				+ "AND x.sequence_number <= ?" + notACopy + filters + " ORDER BY x.sequence_number LIMIT ?";
		return """
				WITH picked AS MATERIALIZED (
				  SELECT * FROM ((%1$s) UNION ALL (%2$s)) u ORDER BY sequence_number LIMIT ?
				), scope AS (
				  INSERT INTO %3$s (id, created_at, next_attempt_at, message_count)
				  SELECT ?, clock_timestamp(), now(), count(*) FROM picked HAVING count(*) > 0
				  RETURNING id
				), written AS (
				  INSERT INTO %4$s (outbox_id, message_id, destination, routing_key, message_type, content_type, headers,
				                    body, correlation_id, conversation_id, source_host)
				  SELECT scope.id, CASE WHEN ? THEN p.message_id ELSE gen_random_uuid() END,
				         coalesce(?::text, p.destination),
				         CASE WHEN ?::text IS NULL THEN p.routing_key ELSE ? END,
				         p.message_type, p.content_type, p.headers || jsonb_build_object('%5$s', ?::text), p.body,
				         p.correlation_id, p.conversation_id,
				         p.source_host
				  FROM scope, picked p ORDER BY p.sequence_number
				  RETURNING 1
				)
				SELECT count(*), max(sequence_number) FROM picked""".formatted(archived, retained, this.state,
				this.message, REPLAY_JOB_HEADER);
	}

	private static String prefixed(String alias) {
		StringBuilder columns = new StringBuilder();
		for (String column : SOURCE_COLUMNS.split(", ")) {
			columns.append(columns.isEmpty() ? "" : ", ").append(alias).append('.').append(column);
		}
		return columns.toString();
	}

}
