package dev.waybill.outbox.internal.jdbc;

/**
 * Every SQL statement of the JDBC outbox store, built once for a set of {@link OutboxTables}.
 * Durations are passed as milliseconds and all times come from the database clock, so relays on
 * hosts with skewed clocks agree on what is due.
 */
final class OutboxSql {

	private static final String MESSAGE_COLUMNS = "message_id, destination, routing_key, message_type, content_type, "
			+ "headers, body, correlation_id, conversation_id, source_host, created_at, not_before, expires_at";

	private static final String SETTLE = "lease_owner = NULL, lease_until = NULL";

	private static final String FENCE = "lease_owner = ? AND status = 'pending'";

	private static final String MILLIS = " * interval '1 millisecond'";

	final String write;

	final String claim;

	final String markPublished;

	final String renew;

	final String retryLater;

	final String deadLetter;

	final String expire;

	final String cancel;

	final String release;

	final String redriveIds;

	final String redriveDestination;

	final String redriveAll;

	final String notify;

	final String stats;

	OutboxSql(OutboxTables tables) {
		String state = tables.qualifiedOutboxState();
		String message = tables.qualifiedOutboxMessage();
		// One statement per scope: the state row (created_at is the write's own time, just before
		// commit, so commit-to-confirm latency can be measured), then every message in publish order from
		// parallel arrays (one round trip however many messages the transaction published).
		this.write = """
				WITH scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, inbound_message_id, consumer_id, message_count)
				  VALUES (?, clock_timestamp(), greatest(now(), ?), ?, ?, ?)
				  RETURNING id
				)
				INSERT INTO %2$s (outbox_id, %3$s)
				SELECT scope.id, m.message_id, m.destination, m.routing_key, m.message_type, m.content_type,
				       m.headers::jsonb, m.body, m.correlation_id, m.conversation_id, m.source_host,
				       m.created_at::timestamptz, m.not_before::timestamptz, m.expires_at::timestamptz
				FROM scope, unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[],
				                   ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
				  WITH ORDINALITY AS m(%3$s, position)
				ORDER BY m.position""".formatted(state, message, MESSAGE_COLUMNS);
		// MATERIALIZED keeps the locking sub-select evaluated exactly once.
		this.claim = """
				WITH due AS MATERIALIZED (
				  SELECT id FROM %1$s
				  WHERE status = 'pending' AND next_attempt_at <= now()
				  ORDER BY next_attempt_at
				  LIMIT ?
				  FOR UPDATE SKIP LOCKED
				), claimed AS (
				  UPDATE %1$s s
				  SET attempts = s.attempts + 1, lease_owner = ?,
				      lease_until = now() + ?%3$s, next_attempt_at = now() + ?%3$s
				  FROM due WHERE s.id = due.id
				  RETURNING s.id, s.created_at, s.attempts, s.lease_owner, s.lease_until
				)
				SELECT c.id AS scope_id, c.created_at AS scope_created_at, c.attempts, c.lease_owner, c.lease_until,
				       m.message_id, m.destination,
				       m.routing_key, m.message_type, m.content_type, m.headers::text AS headers, m.body,
				       m.correlation_id, m.conversation_id, m.source_host, m.created_at, m.not_before,
				       m.expires_at
				FROM claimed c LEFT JOIN %2$s m ON m.outbox_id = c.id
				ORDER BY m.sequence_number""".formatted(state, message, MILLIS);
		this.markPublished = "UPDATE " + state + " SET status = 'published', published_at = now(), last_error = NULL, "
				+ SETTLE + " WHERE id = ANY(?) AND " + FENCE;
		// By primary key and owner: its cost is the held scopes', whatever the table holds.
		this.renew = "UPDATE " + state + " SET lease_until = now() + ?" + MILLIS + ", next_attempt_at = now() + ?" + MILLIS
				+ " WHERE id = ANY(?) AND " + FENCE;
		this.retryLater = "UPDATE " + state + " SET next_attempt_at = now() + ?" + MILLIS + ", last_error = ?, "
				+ SETTLE + " WHERE id = ? AND " + FENCE;
		this.deadLetter = "UPDATE " + state + " SET status = 'dead', last_error = ?, " + SETTLE + " WHERE id = ? AND "
				+ FENCE;
		// Expired and cancelled scopes are final, like published ones; completed_at dates them for retention.
		this.expire = "UPDATE " + state + " SET status = 'expired', completed_at = now(), " + SETTLE
				+ " WHERE id = ANY(?) AND " + FENCE;
		// In the caller's transaction: clock_timestamp(), not its start time, tells whether a lease holds.
		// A scope a relay holds may be on its way to the broker, so it is no longer cancellable.
		this.cancel = "UPDATE " + state + " SET status = 'cancelled', completed_at = clock_timestamp(), " + SETTLE
				+ " WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < clock_timestamp())";
		this.release = "UPDATE " + state + " SET attempts = greatest(attempts - 1, 0), next_attempt_at = now() + ?"
				+ MILLIS + ", " + SETTLE + " WHERE id = ANY(?) AND " + FENCE;
		String redrive = "UPDATE " + state + " s SET status = 'pending', attempts = 0, next_attempt_at = now(), "
				+ SETTLE + " WHERE s.status = 'dead'";
		this.redriveIds = redrive + " AND s.id = ANY(?)";
		this.redriveDestination = redrive + " AND EXISTS (SELECT 1 FROM " + message
				+ " m WHERE m.outbox_id = s.id AND m.destination = ?)";
		this.redriveAll = redrive;
		this.notify = "SELECT pg_notify(?, '')";
		// Both parts read only the partial pending and dead indexes' rows, never the published ones.
		this.stats = "SELECT count(*), coalesce(sum(message_count), 0), count(*) FILTER (WHERE next_attempt_at <= now()), "
				+ "(SELECT count(*) FROM " + state + " WHERE status = 'dead'), min(created_at), "
				+ "(extract(epoch FROM min(next_attempt_at) - now()) * 1000)::bigint FROM " + state
				+ " WHERE status = 'pending'";
	}

}
