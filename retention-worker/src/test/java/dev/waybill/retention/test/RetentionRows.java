package dev.waybill.retention.test;

import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.test.TestSchema;

/**
 * Writes outbox scopes and inbox rows of given ages straight into a test schema. Ages are
 * PostgreSQL intervals such as {@code '31 days'}; {@code null} leaves the column empty.
 */
public final class RetentionRows {

	private final JdbcTemplate jdbc;

	private final OutboxTables tables;

	public RetentionRows(TestSchema schema) {
		this.jdbc = new JdbcTemplate(schema.dataSource());
		this.tables = schema.tables();
	}

	public JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/** A producer scope with one message, published {@code publishedAgo}. */
	public UUID published(String publishedAgo) {
		return scope("published", "now() - interval '" + publishedAgo + "'", "now()", "now()", null, null);
	}

	/** A consumer scope with one message, published {@code publishedAgo}, written while handling {@code inbound}. */
	public UUID consumerScope(String publishedAgo, UUID inbound, String consumer) {
		return scope("published", "now() - interval '" + publishedAgo + "'", "now()", "now()", inbound, consumer);
	}

	/** A pending consumer scope (a redelivery on its way) created {@code createdAgo}, due {@code nextAttemptAt}. */
	public UUID pendingConsumerScope(String createdAgo, String nextAttemptAt, UUID inbound, String consumer) {
		return scope("pending", "NULL", "now() - interval '" + createdAgo + "'", nextAttemptAt, inbound, consumer);
	}

	/** A dead consumer scope created {@code createdAgo} while handling {@code inbound}. */
	public UUID deadConsumerScope(String createdAgo, UUID inbound, String consumer) {
		String created = "now() - interval '" + createdAgo + "'";
		return scope("dead", "NULL", created, created, inbound, consumer);
	}

	/**
	 * A scope that reached {@code status} ({@code expired} or {@code cancelled}) {@code completedAgo},
	 * created a year ago, optionally of a consumer.
	 */
	public UUID finished(String status, String completedAgo, @Nullable UUID inbound, @Nullable String consumer) {
		UUID id = scope(status, "NULL", "now() - interval '365 days'", "now()", inbound, consumer);
		this.jdbc.update("UPDATE " + this.tables.qualifiedOutboxState() + " SET completed_at = now() - interval '"
				+ completedAgo + "' WHERE id = ?", id);
		return id;
	}

	public UUID dead(String createdAgo) {
		String created = "now() - interval '" + createdAgo + "'";
		return scope("dead", "NULL", created, created, null, null);
	}

	public UUID pending(String createdAgo, String nextAttemptAt) {
		return scope("pending", "NULL", "now() - interval '" + createdAgo + "'", nextAttemptAt, null, null);
	}

	private UUID scope(String status, String publishedAt, String createdAt, String nextAttemptAt, @Nullable UUID inbound,
			@Nullable String consumer) {
		UUID id = UUID.randomUUID();
		// One statement: a retention worker running meanwhile sees the scope with its message or not at all.
		this.jdbc.update("WITH scope AS (INSERT INTO " + this.tables.qualifiedOutboxState() + " (id, status, published_at, "
				+ "created_at, next_attempt_at, inbound_message_id, consumer_id, message_count) VALUES (?, ?, "
				+ publishedAt + ", " + createdAt + ", " + nextAttemptAt + ", ?, ?, 1) RETURNING id) "
				+ "INSERT INTO " + this.tables.qualifiedOutboxMessage() + " (outbox_id, message_id, destination, "
				+ "message_type, content_type, body) SELECT id, ?, 'orders', 'test', 'application/json', '\\x7b7d' "
				+ "FROM scope", id, status, inbound, consumer, UUID.randomUUID());
		return id;
	}

	/** An inbox row processed {@code processedAgo}. */
	public UUID processed(String processedAgo, String consumer) {
		return inbox("now() - interval '" + processedAgo + "'", "NULL", consumer);
	}

	/** An inbox row that faulted {@code faultedAgo} and was never processed. */
	public UUID faulted(String faultedAgo) {
		return faulted(faultedAgo, "consumer");
	}

	/** An inbox row of {@code consumer} that faulted {@code faultedAgo} and was never processed. */
	public UUID faulted(String faultedAgo, String consumer) {
		return inbox("NULL", "now() - interval '" + faultedAgo + "'", consumer);
	}

	/** An inbox row first received {@code receivedAgo} whose handler failed once: neither processed nor faulted. */
	public UUID retrying(String receivedAgo, String consumer) {
		return inbox("now() - interval '" + receivedAgo + "'", "NULL", "NULL", 1, consumer);
	}

	private UUID inbox(String processedAt, String faultedAt, String consumer) {
		return inbox("now() - interval '400 days'", processedAt, faultedAt, 0, consumer);
	}

	private UUID inbox(String receivedAt, String processedAt, String faultedAt, int attempts, String consumer) {
		UUID id = UUID.randomUUID();
		this.jdbc.update("INSERT INTO " + this.tables.qualifiedInboxState() + " (message_id, consumer_id, received_at, "
				+ "processed_at, faulted_at, attempts) VALUES (?, ?, " + receivedAt + ", " + processedAt + ", " + faultedAt
				+ ", ?)", id, consumer, attempts);
		return id;
	}

	public boolean scopeExists(UUID id) {
		return count(this.tables.qualifiedOutboxState() + " WHERE id = ?", id) == 1;
	}

	public long messagesOf(UUID scope) {
		return count(this.tables.qualifiedOutboxMessage() + " WHERE outbox_id = ?", scope);
	}

	public boolean inboxExists(UUID messageId) {
		return count(this.tables.qualifiedInboxState() + " WHERE message_id = ?", messageId) == 1;
	}

	/** Returns the rows left in the outbox state, outbox message and inbox state tables. */
	public long[] remaining() {
		return new long[] { count(this.tables.qualifiedOutboxState()), count(this.tables.qualifiedOutboxMessage()),
				count(this.tables.qualifiedInboxState()) };
	}

	public long count(String fromWhere, Object... arguments) {
		Long count = this.jdbc.queryForObject("SELECT count(*) FROM " + fromWhere, Long.class, arguments);
		return (count != null) ? count : 0;
	}

}
