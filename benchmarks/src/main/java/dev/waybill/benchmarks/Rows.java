package dev.waybill.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.test.TestSchema;

/**
 * Writes outbox rows in bulk with SQL ({@code INSERT ... SELECT generate_series}), outside every
 * timed window: a backlog of pending scopes with 1 KiB bodies for the relay, and published scopes
 * kept for retention. One statement per call, each scope's messages stored together as the
 * publisher writes them.
 */
final class Rows {

	/** Batches of kept rows, so one statement does not hold millions of returned ids. */
	private static final int KEPT_CHUNK = 1_000_000;

	private static final AtomicInteger generations = new AtomicInteger();

	private final DataSource dataSource;

	private final OutboxTables tables;

	Rows(TestSchema schema) {
		this(schema.dataSource(), schema.tables());
	}

	/**
	 * Works on Waybill's tables in any schema of a database, e.g. a store's that a registration
	 * created.
	 * @param dataSource connections to the database
	 * @param tables the tables
	 */
	Rows(DataSource dataSource, OutboxTables tables) {
		this.dataSource = dataSource;
		this.tables = tables;
	}

	/**
	 * Writes {@code messages} pending messages, due now, in scopes of {@code scopeSize}, with
	 * {@link BenchOrder} bodies, for {@code destination} (also their message type, so the transport
	 * declares the exchange as it does for {@code publish}).
	 */
	void pending(int messages, int scopeSize, String destination) {
		if (messages % scopeSize != 0) {
			throw new IllegalArgumentException(messages + " messages do not fill scopes of " + scopeSize);
		}
		String seq = "(i - 1) * " + scopeSize + " + j";
		execute("""
				WITH scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, message_count)
				  SELECT gen_random_uuid(), clock_timestamp(), now(), %3$d FROM generate_series(1, %4$d) i
				  RETURNING id
				), numbered AS (
				  SELECT id, row_number() OVER (ORDER BY id) AS i FROM scope
				)
				INSERT INTO %2$s (outbox_id, message_id, destination, routing_key, message_type, content_type, headers,
				                  body, source_host, created_at)
				SELECT n.id, gen_random_uuid(), '%5$s', '', '%5$s', 'application/json', '{}', %6$s, 'bench', now()
				FROM numbered n CROSS JOIN generate_series(1, %3$d) j
				ORDER BY n.i, j""".formatted(this.tables.qualifiedOutboxState(), this.tables.qualifiedOutboxMessage(),
				scopeSize, messages / scopeSize, destination, BenchOrder.sqlJson(seq)));
	}

	/**
	 * Writes {@code messages} pending scopes of one message each, due now, each with the ordering
	 * key {@code keyOf} gives its number {@code i} (an SQL expression over {@code i}, 1-based), as
	 * the publisher would: the key in the scope row and the message's header, the scope's place in
	 * its key's order, and every scope but the first of its key held back.
	 */
	void pendingKeyed(int messages, String keyOf, String destination) {
		execute("""
				WITH keyed AS (
				  SELECT i, %6$s AS k FROM generate_series(1, %3$d) i
				), scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, message_count, ordering_key, ordering_seq, ordering_held)
				  SELECT gen_random_uuid(), clock_timestamp(), now(), 1, k, nextval('%7$s'),
				         row_number() OVER (PARTITION BY k ORDER BY i) > 1
				  FROM keyed ORDER BY i
				  RETURNING id, ordering_key, ordering_seq
				)
				INSERT INTO %2$s (outbox_id, message_id, destination, routing_key, message_type, content_type, headers,
				                  body, source_host, created_at)
				SELECT s.id, gen_random_uuid(), '%4$s', '', '%4$s', 'application/json',
				       jsonb_build_object('waybill-ordering-key', s.ordering_key), %5$s, 'bench', now()
				FROM scope s ORDER BY s.ordering_seq""".formatted(this.tables.qualifiedOutboxState(),
				this.tables.qualifiedOutboxMessage(), messages, destination, BenchOrder.sqlJson("s.ordering_seq"), keyOf,
				this.tables.orderingSequence()));
	}

	/**
	 * Gives every pending message a W3C {@code traceparent} header of a trace of its own, as a
	 * message published inside a traced request carries.
	 */
	void traceparents() {
		execute("""
				UPDATE %1$s SET headers = jsonb_build_object('traceparent',
				  '00-' || md5(message_id::text) || '-' || substr(md5(outbox_id::text), 1, 16) || '-01')""".formatted(
				this.tables.qualifiedOutboxMessage()));
	}

	/**
	 * Writes {@code scopes} published scopes of one message each (64-byte bodies), published
	 * {@code publishedAgo} (a PostgreSQL interval such as {@code 31 days}). Their ids are
	 * sequential, so index inserts append.
	 */
	void published(long scopes, String publishedAgo) {
		for (long done = 0; done < scopes; done += KEPT_CHUNK) {
			int generation = generations.incrementAndGet();
			long count = Math.min(KEPT_CHUNK, scopes - done);
			String id = "(lpad(to_hex(" + generation + "), 8, '0') || '-%s-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid";
			execute("""
					WITH scope AS (
					  INSERT INTO %1$s (id, created_at, status, published_at, attempts, next_attempt_at, message_count)
					  SELECT %3$s, now() - interval '%5$s', 'published', now() - interval '%5$s', 1,
					         now() - interval '%5$s', 1
					  FROM generate_series(1, %4$d) i
					  RETURNING id
					)
					INSERT INTO %2$s (outbox_id, message_id, destination, routing_key, message_type, content_type, body,
					                  created_at)
					SELECT id, overlay(id::text placing '0001' from 10 for 4)::uuid, 'kept', '', 'kept',
					       'application/json', convert_to(repeat('k', 64), 'UTF8'), now() - interval '%5$s'
					FROM scope ORDER BY id""".formatted(this.tables.qualifiedOutboxState(),
					this.tables.qualifiedOutboxMessage(), id.formatted("0000"), count, publishedAgo));
		}
	}

	/**
	 * Deletes the scopes published within the last hour (the relay's drained backlog), keeping the
	 * older rows written by {@link #published(long, String)}.
	 */
	void deleteRecentlyPublished() {
		execute("DELETE FROM " + this.tables.qualifiedOutboxState()
				+ " WHERE status = 'published' AND published_at > now() - interval '1 hour'");
	}

	/**
	 * Empties the outbox and inbox tables.
	 */
	void truncate() {
		execute("TRUNCATE " + this.tables.qualifiedOutboxMessage() + ", " + this.tables.qualifiedOutboxState()
				+ ", " + this.tables.qualifiedInboxState());
	}

	/**
	 * Vacuums and analyzes the outbox tables, as autovacuum would after a bulk change, so the
	 * measured window does not pay for it.
	 */
	void vacuumAnalyze() {
		execute("VACUUM ANALYZE " + this.tables.qualifiedOutboxState());
		execute("VACUUM ANALYZE " + this.tables.qualifiedOutboxMessage());
	}

	/**
	 * Returns the on-disk size of each of the outbox tables and of each of their indexes, read
	 * after {@link #vacuumAnalyze()} so that it is what the kept rows take.
	 * @return bytes by relation name (the table's heap with its TOAST, or the index), tables first
	 */
	java.util.Map<String, Long> relationSizes() {
		java.util.Map<String, Long> sizes = new java.util.LinkedHashMap<>();
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		for (String table : java.util.List.of(this.tables.qualifiedOutboxState(), this.tables.qualifiedOutboxMessage())) {
			jdbc.query("SELECT c.relname, pg_table_size(c.oid) FROM pg_class c WHERE c.oid = ?::regclass",
					(java.sql.ResultSet row) -> {
						sizes.put(row.getString(1), row.getLong(2));
					}, table);
			jdbc.query("SELECT i.relname, pg_relation_size(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
					+ "WHERE x.indrelid = ?::regclass ORDER BY i.relname", (java.sql.ResultSet row) -> {
						sizes.put(row.getString(1), row.getLong(2));
					}, table);
		}
		return sizes;
	}

	/**
	 * Counts the scopes with a status.
	 * @param status pending, published or dead
	 * @return the count
	 */
	long scopes(String status) {
		return new JdbcTemplate(this.dataSource).queryForObject(
				"SELECT count(*) FROM " + this.tables.qualifiedOutboxState() + " WHERE status = ?", Long.class, status);
	}

	private void execute(String sql) {
		new JdbcTemplate(this.dataSource).execute(sql);
	}

}
