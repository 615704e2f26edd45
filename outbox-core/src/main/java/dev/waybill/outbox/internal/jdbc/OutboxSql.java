package dev.waybill.outbox.internal.jdbc;

import dev.waybill.kernel.OutboxTables;

/**
 * Every SQL statement of the JDBC outbox store, built once for a set of {@link OutboxTables}.
 * Durations are passed as milliseconds and all times come from the database clock, so relays on
 * hosts with skewed clocks agree on what is due.
 *
 * @since 0.1
 */
final class OutboxSql {

	private static final String MESSAGE_COLUMNS = "message_id, destination, routing_key, message_type, content_type, "
			+ "headers, body, correlation_id, conversation_id, source_host, created_at, not_before, expires_at";

	private static final String SETTLE = "lease_owner = NULL, lease_until = NULL";

	private static final String FENCE = "lease_owner = ? AND status = 'pending'";

	/**
	 * A scope written leased to this process's relay (direct dispatch; {@code l} holds the lease
	 * owner and its length, both NULL otherwise; only the transaction's scope without an ordering
	 * key takes it) counts its first attempt and is not due before its lease ends, as if
	 * claimed at its write; else it is due at its not-before time.
	 */
	private static final String LEASED = "(l.lease_owner IS NOT NULL AND s.ordering_key IS NULL)";

	private static final String LEASE_END = "clock_timestamp() + l.lease_millis * interval '1 millisecond'";

	private static final String DIRECT_NEXT_ATTEMPT = "CASE WHEN " + LEASED + " THEN " + LEASE_END
			+ " ELSE greatest(now(), %s) END";

	private static final String DIRECT_LEASE = "CASE WHEN " + LEASED + " THEN 1 ELSE 0 END, CASE WHEN " + LEASED
			+ " THEN l.lease_owner END, CASE WHEN " + LEASED + " THEN " + LEASE_END + " END";

	/** How many advisory locks the ordering keys share (a power of two). */
	static final int KEY_LOCK_BUCKETS = 1024;

	private static final String MILLIS = " * interval '1 millisecond'";

	/** The claim's result, by column index (1-based). */
	static final int CLAIM_SCOPE_ID = 1, CLAIM_SCOPE_CREATED = 2, CLAIM_ATTEMPTS = 3, CLAIM_LEASE_UNTIL = 4,
			CLAIM_MESSAGE_ID = 5, CLAIM_DESTINATION = 6, CLAIM_ROUTING_KEY = 7, CLAIM_MESSAGE_TYPE = 8,
			CLAIM_CONTENT_TYPE = 9, CLAIM_HEADERS = 10, CLAIM_BODY = 11, CLAIM_CORRELATION_ID = 12,
			CLAIM_CONVERSATION_ID = 13, CLAIM_SOURCE_HOST = 14, CLAIM_CREATED = 15, CLAIM_NOT_BEFORE = 16,
			CLAIM_EXPIRES = 17;

	final String write;

	final String writeOne;

	final String lockKeys;

	final String promote;

	final String promoteAfterPublish;

	final String skip;

	final String sweep;

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
		// One statement per transaction: its scope rows (one per ordering key, see
		// OutboxScope.perOrderingKey; created_at is the write's own time, just before commit, so
		// commit-to-confirm latency can be measured), then every message in publish order from
		// parallel arrays (one round trip however many messages and keys the transaction wrote).
		// Ordering, see the README's "Ordering": a keyed scope takes the next value of
		// the ordering sequence while its transaction holds the key's advisory lock (lockKeys, run
		// just before, in a statement of its own), and keeps the lock until it commits; so two
		// transactions that write one key take sequence values in the order they commit. It is
		// held back (ordering_held) when its key already has a scope that is not published: only
		// the head of each key is in the claim's ready index. The write decides that on its own
		// snapshot; the relay's promotion and sweep make up for a snapshot that was stale.
		this.write = """
				WITH scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, inbound_message_id, consumer_id, message_count,
				                    ordering_key, ordering_seq, ordering_held, attempts, lease_owner, lease_until)
				  SELECT s.id, clock_timestamp(), %5$s, ?, ?, s.message_count,
				         s.ordering_key, CASE WHEN s.ordering_key IS NULL THEN NULL ELSE nextval('%4$s') END,
				         s.ordering_key IS NOT NULL AND EXISTS (SELECT 1 FROM %1$s p
				           WHERE p.ordering_key = s.ordering_key AND p.status IN ('pending', 'dead')),
				         %6$s
				  FROM unnest(?::uuid[], ?::text[], ?::text[], ?::int[]) AS s(id, not_before, ordering_key, message_count),
				       (VALUES (?::text, ?::int8)) AS l(lease_owner, lease_millis)
				  RETURNING id
				)
				INSERT INTO %2$s (outbox_id, %3$s)
				SELECT scope.id, m.message_id, m.destination, m.routing_key, m.message_type, m.content_type,
				       m.headers::jsonb, m.body, m.correlation_id, m.conversation_id, m.source_host,
				       m.created_at::timestamptz, m.not_before::timestamptz, m.expires_at::timestamptz
				FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[],
				            ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
				  WITH ORDINALITY AS m(outbox_id, %3$s, position)
				  JOIN scope ON scope.id = m.outbox_id
				ORDER BY m.position""".formatted(state, message, MESSAGE_COLUMNS, tables.orderingSequence(),
				DIRECT_NEXT_ATTEMPT.formatted("s.not_before::timestamptz"), DIRECT_LEASE);
		// The common case, one scope of one message, with scalar parameters: no arrays to encode
		// and unnest (a bytea array travels as escaped hex text, a scalar bytea as its bytes), no
		// join or sort. Same rows as the statement above.
		this.writeOne = """
				WITH scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, inbound_message_id, consumer_id, message_count,
				                    ordering_key, ordering_seq, ordering_held, attempts, lease_owner, lease_until)
				  SELECT s.id, clock_timestamp(), %5$s, s.inbound_message_id, s.consumer_id, 1,
				         s.ordering_key, CASE WHEN s.ordering_key IS NULL THEN NULL ELSE nextval('%4$s') END,
				         s.ordering_key IS NOT NULL AND EXISTS (SELECT 1 FROM %1$s p
				           WHERE p.ordering_key = s.ordering_key AND p.status IN ('pending', 'dead')),
				         %6$s
				  FROM (VALUES (?::uuid, ?::timestamptz, ?::uuid, ?::text, ?::text))
				    AS s(id, not_before, inbound_message_id, consumer_id, ordering_key),
				       (VALUES (?::text, ?::int8)) AS l(lease_owner, lease_millis)
				  RETURNING id
				)
				INSERT INTO %2$s (outbox_id, %3$s)
				SELECT scope.id, ?::uuid, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz
				FROM scope""".formatted(state, message, MESSAGE_COLUMNS, tables.orderingSequence(),
				DIRECT_NEXT_ATTEMPT.formatted("s.not_before"), DIRECT_LEASE);
		// Advisory locks (two-int form: this table set, one of 1024 buckets of the key's hash), taken
		// in bucket order so two lockers of several keys cannot deadlock. Buckets bound the locks a
		// transaction of many keys takes (PostgreSQL's lock table is shared and finite); two keys of
		// one bucket only serialize their writers' commits.
		String keyLocks = "SELECT count(pg_advisory_xact_lock(hashtext('%1$s'), h)) FROM (SELECT DISTINCT hashtext(k) & "
				+ (KEY_LOCK_BUCKETS - 1) + " AS h FROM %2$s ORDER BY h) locked";
		this.lockKeys = keyLocks.formatted(state, "unnest(?::text[]) k");
		// Promotes the head of each key (its unpublished scope with the lowest sequence) when it is
		// held back and no relay holds it: a head a relay claimed behind the key's run in flight needs
		// no write now, and is promoted when it is given back or retried (those writes clear the flag)
		// or, if its lease runs out, by the sweep. Reads the ordering index only.
		String heads = "SELECT DISTINCT ON (ordering_key) id, ordering_held FROM " + state
				+ " WHERE ordering_key IS NOT NULL AND status IN ('pending', 'dead') %s ORDER BY ordering_key, ordering_seq";
		String promoteHeads = "UPDATE " + state + " s SET ordering_held = false FROM (" + heads + ") h "
				+ "WHERE s.id = h.id AND h.ordering_held AND s.status IN ('pending', 'dead') "
				+ "AND (s.lease_until IS NULL OR s.lease_until <= now())";
		this.promote = promoteHeads.formatted("AND ordering_key = ANY(?)");
		// After a publication: promotes each key's head and returns, from the same snapshot, the keys
		// with no unpublished scope left. Of those, a key whose lock the mark could not take may have a
		// writer that is committing now and held its scope back behind the scope just published (its
		// snapshot came before the mark): the caller waits for that key's writers (lockKeys: a writer
		// holds its key's lock until it commits) and promotes it once more. A key with an unpublished
		// scope left needs nothing more: a writer committing now comes after that scope (it took its
		// sequence value later, under the lock), whose own publication promotes what follows. So the
		// mark of a hot key does not queue behind the writers of that key.
		this.promoteAfterPublish = "WITH promoted AS (" + this.promote + " RETURNING s.id) SELECT k FROM unnest(?::text[]) k "
				+ "WHERE NOT EXISTS (SELECT 1 FROM " + state + " p WHERE p.ordering_key = k AND p.ordering_key IS NOT NULL "
				+ "AND p.status IN ('pending', 'dead'))";
		// The safety net for a write whose snapshot missed its head's publication (a REPEATABLE
		// READ writer), run now and then: one pass over the unpublished keyed scopes.
		this.sweep = promoteHeads.formatted("");
		// An operator's skip detaches dead scopes from their key (they stay dead, can be redriven,
		// unordered), under the keys' locks; the caller then promotes the keys it returns.
		this.skip = "UPDATE " + state + " s SET ordering_key = NULL, ordering_seq = NULL, ordering_held = false, "
				+ "last_error = left('[ordering key ' || d.ordering_key || ' skipped] ' || coalesce(s.last_error, ''), 4000) "
				+ "FROM (SELECT id, ordering_key FROM " + state + " WHERE id = ANY(?) AND status = 'dead' "
				+ "AND ordering_key IS NOT NULL) d WHERE s.id = d.id AND s.status = 'dead' "
				+ "AND (" + keyLocks.formatted(state, state + " WHERE id = ANY(?) AND ordering_key IS NOT NULL "
						+ "AND status = 'dead'").replace("hashtext(k)", "hashtext(ordering_key)") + ") >= 0 "
				+ "RETURNING d.ordering_key";
		// MATERIALIZED keeps the locking sub-selects evaluated exactly once. The relay decodes every
		// row it claims, so the columns are the cheapest to read: times as epoch microseconds
		// (exact, a number rather than a timestamp text to parse), empty headers as NULL (no JSON
		// to parse), positional (ClaimedRows reads them by index, CLAIM_* above).
		// A key's run: behind each keyed head of one message, the key's next scopes as long as each
		// is pending, due and one message to the head's destination and routing key (held back, as
		// they are: the head is in this claim, so their order is this relay's to keep). Consecutive
		// in sequence order, the first that breaks the chain ends it (bool_and over the window), and
		// read from the ordering index in order and limited, so a key's long backlog costs no more
		// than the rows taken. Locked without waiting; a run ends before the first row another
		// transaction holds (the last statement's window), so no scope is claimed ahead of an
		// earlier one of its key. A claimer that names the keys it has in flight gets their next
		// scopes too, and none of their heads (see KeysInFlight). The result is in sequence order per
		// key, the order to publish in.
		this.claim = """
				WITH due AS MATERIALIZED (
				  SELECT id, ordering_key, ordering_seq, message_count FROM %1$s s
				  WHERE status = 'pending' AND next_attempt_at <= now() AND NOT ordering_held
				    -- Head of line: a keyed scope only when no earlier scope of its key is
				    -- unpublished (pending, in flight or dead). One probe of the ordering index; held
				    -- scopes are not even in the ready index, so this rarely rejects a row.
				    AND (s.ordering_key IS NULL OR NOT EXISTS (
				      SELECT 1 FROM %1$s p WHERE p.ordering_key = s.ordering_key
				        AND p.ordering_seq < s.ordering_seq AND p.status IN ('pending', 'dead')))
				    -- A key the claimer has in flight is only continued, below: a head of it claimed
				    -- here (one whose lease ran out) would go out behind scopes that follow it.
				    AND (s.ordering_key IS NULL OR NOT s.ordering_key = ANY(?::text[]))
				  ORDER BY next_attempt_at
				  LIMIT ?
				  FOR UPDATE SKIP LOCKED
				), follows AS MATERIALIZED (
				  SELECT w.id, h.ordering_key, w.ordering_seq
				  FROM due h
				  CROSS JOIN LATERAL (
				    SELECT n.id, n.ordering_seq, bool_and(n.follows) OVER (ORDER BY n.ordering_seq) AS consecutive
				    FROM (
				      SELECT f.id, f.ordering_seq, f.status = 'pending' AND f.next_attempt_at <= now()
				               AND f.message_count = 1 AND EXISTS (SELECT 1 FROM %2$s fm JOIN %2$s hm
				                 ON hm.destination = fm.destination AND hm.routing_key = fm.routing_key
				                 WHERE fm.outbox_id = f.id AND hm.outbox_id = h.id) AS follows
				      FROM %1$s f
				      WHERE f.ordering_key = h.ordering_key AND f.ordering_seq > h.ordering_seq
				        AND f.status IN ('pending', 'dead')
				      ORDER BY f.ordering_seq
				      LIMIT greatest(0, ?::int - 1)
				    ) n
				  ) w
				  WHERE h.ordering_key IS NOT NULL AND h.message_count = 1 AND w.consecutive
				  UNION ALL
				  -- Behind each key this claimer still has in flight (see KeysInFlight): the key's
				  -- next scopes like a run's, provided everything unpublished before them is leased to
				  -- the claimer's owners (mine) and its leases hold, so the key moves on along the
				  -- claimer's channel without waiting for each confirm.
				  SELECT c.id, c.ordering_key, c.ordering_seq
				  FROM unnest(?::text[], ?::text[], ?::text[], ?::uuid[], ?::boolean[])
				    AS k(ordering_key, destination, routing_key, from_scope, continuable)
				  CROSS JOIN LATERAL (
				    SELECT t.id, t.ordering_key, t.ordering_seq, t.takes AND t.ordering_seq > t.last_mine AS taken,
				           bool_and(t.mine OR (t.takes AND t.ordering_seq > t.last_mine))
				             OVER (ORDER BY t.ordering_seq) AS unbroken
				    FROM (
				      SELECT r.*, max(r.ordering_seq) FILTER (WHERE r.mine) OVER () AS last_mine
				      FROM (
				        SELECT f.id, f.ordering_key, f.ordering_seq,
				               -- IS TRUE: a scope no one leases has no lease_until, and bool_and skips NULLs
				               (f.status = 'pending' AND f.lease_until > now() AND f.lease_owner = ANY(?::text[])) IS TRUE AS mine,
				               f.status = 'pending' AND f.next_attempt_at <= now() AND f.message_count = 1
				                 AND EXISTS (SELECT 1 FROM %2$s fm WHERE fm.outbox_id = f.id
				                   AND fm.destination = k.destination AND fm.routing_key = k.routing_key) AS takes
				        FROM %1$s f
				        WHERE k.continuable AND f.ordering_key = k.ordering_key AND f.status IN ('pending', 'dead')
				          -- from the claimer's first unsettled scope: what is before it is published, and the
				          -- index entries of published scopes, until vacuum removes them, are not read
				          AND f.ordering_seq >= (SELECT o.ordering_seq FROM %1$s o WHERE o.id = k.from_scope)
				        ORDER BY f.ordering_seq
				        -- the first scopes of the key, the claimer's in flight among them: a key never has
				        -- more than the limit in flight, so no more can overtake a refused one
				        LIMIT ?::int
				      ) r
				    ) t
				  ) c
				  WHERE c.taken AND c.unbroken
				), run AS MATERIALIZED (
				  SELECT r.id FROM %1$s r JOIN follows f ON f.id = r.id
				  WHERE r.status = 'pending'
				  FOR UPDATE OF r SKIP LOCKED
				), claimable AS (
				  SELECT id FROM due
				  UNION ALL
				  SELECT l.id FROM (
				    SELECT f.id, bool_and(k.id IS NOT NULL) OVER (PARTITION BY f.ordering_key ORDER BY f.ordering_seq) AS locked
				    FROM follows f LEFT JOIN run k ON k.id = f.id
				  ) l WHERE l.locked
				), claimed AS (
				  UPDATE %1$s s
				  -- Capped: a count an operator or an older tool set to the largest integer must not
				  -- fail the claim (integer out of range) of every scope due with it.
				  SET attempts = least(s.attempts::int8 + 1, 2147483647)::int, lease_owner = ?,
				      lease_until = now() + ?%3$s, next_attempt_at = now() + ?%3$s
				  FROM claimable WHERE s.id = claimable.id
				  RETURNING s.id, s.created_at, s.attempts, s.lease_until, s.ordering_seq
				)
				SELECT c.id, %4$s, c.attempts, %5$s,
				       m.message_id, m.destination, m.routing_key, m.message_type, m.content_type,
				       CASE WHEN m.headers <> '{}' THEN m.headers::text END, m.body,
				       m.correlation_id, m.conversation_id, m.source_host, %6$s, %7$s, %8$s
				FROM claimed c LEFT JOIN %2$s m ON m.outbox_id = c.id
				ORDER BY c.ordering_seq, m.sequence_number""".formatted(state, message, MILLIS, micros("c.created_at"),
				micros("c.lease_until"), micros("m.created_at"), micros("m.not_before"), micros("m.expires_at"));
		// By primary key alone, returning each marked scope's ordering key (those not null are the keys
		// to promote, see promoteAfterPublish) and whether it took the key's lock without waiting: a
		// key locked so has no writer committing now, and a writer that comes later waits for this
		// commit and sees the scope published, so the promotion that follows sees all there is. A key
		// whose lock a writer holds is marked all the same; promoteAfterPublish deals with it. It reads
		// nothing but the marked scopes' primary-key entries, whatever plan PostgreSQL caches: a
		// statement that probes "is any keyed scope unpublished" gets a generic plan, made while the
		// table is new, that scans the whole table at every mark until the next ANALYZE.
		// Its commit need not wait for the write-ahead log's flush (the third column, set in the
		// statement since it commits by itself): a mark lost in a crash leaves its scope pending, and
		// the scope is published again, a duplicate the inbox drops; the write-ahead log keeps the
		// marks in the order they were made, so no later scope of a key can stay published without
		// an earlier one.
		this.markPublished = "UPDATE " + state + " SET status = 'published', published_at = now(), last_error = NULL, "
				+ SETTLE + " WHERE id = ANY(?) AND " + FENCE + " RETURNING ordering_key, ordering_key IS NULL "
				+ "OR pg_try_advisory_xact_lock(hashtext('" + state + "'), hashtext(ordering_key) & " + (KEY_LOCK_BUCKETS - 1)
				+ "), set_config('synchronous_commit', 'off', true)";
		// By primary key and owner: its cost is the held scopes', whatever the table holds.
		this.renew = "UPDATE " + state + " SET lease_until = now() + ?" + MILLIS + ", next_attempt_at = now() + ?" + MILLIS
				+ " WHERE id = ANY(?) AND " + FENCE;
		// A retried or given-back scope is claimable as its key's head (see promoteHeads): one that
		// was claimed behind its key's run in flight was still held back.
		this.retryLater = "UPDATE " + state + " SET next_attempt_at = now() + ?" + MILLIS + ", last_error = ?, "
				+ "ordering_held = false, " + SETTLE + " WHERE id = ? AND " + FENCE;
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
				+ MILLIS + ", ordering_held = false, " + SETTLE + " WHERE id = ANY(?) AND " + FENCE;
		String redrive = "UPDATE " + state + " s SET status = 'pending', attempts = 0, next_attempt_at = now(), "
				+ "ordering_held = false, " + SETTLE + " WHERE s.status = 'dead'";
		this.redriveIds = redrive + " AND s.id = ANY(?)";
		this.redriveDestination = redrive + " AND EXISTS (SELECT 1 FROM " + message
				+ " m WHERE m.outbox_id = s.id AND m.destination = ?)";
		this.redriveAll = redrive;
		this.notify = "SELECT pg_notify(?, '')";
		this.stats = stats(tables);
	}

	/**
	 * The backlog figures of one table set, in the columns {@link OperatorStatements#stats(java.sql.ResultSet, int)} reads.
	 * Both parts read only the partial pending (ready and ordering) and dead indexes' rows, never
	 * the published ones.
	 */
	static String stats(OutboxTables tables) {
		String state = tables.qualifiedOutboxState();
		return "SELECT count(*), coalesce(sum(message_count), 0), count(*) FILTER (WHERE next_attempt_at <= now()), "
				+ "(SELECT count(*) FROM " + state + " WHERE status = 'dead'), min(created_at), "
				+ "(extract(epoch FROM min(next_attempt_at) - now()) * 1000)::bigint FROM " + state
				+ " s WHERE " + OutboxTables.pendingCondition("s");
	}

	/** A timestamptz as epoch microseconds: exact, and a plain number for the driver to read. */
	private static String micros(String column) {
		return "(extract(epoch FROM " + column + ") * 1000000)::int8";
	}

}
