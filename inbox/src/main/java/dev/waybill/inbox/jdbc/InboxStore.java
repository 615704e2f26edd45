package dev.waybill.inbox.jdbc;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.jdbc.OutboxTables;
import dev.waybill.outbox.jdbc.PostgresText;

/**
 * The inbox table ({@code inbox_state}, one row per message id and consumer id) over JDBC. Every
 * operation is one statement on the connection of the current Spring transaction, which must
 * manage this store's DataSource: the row lock an operation takes is what makes a concurrent
 * duplicate delivery wait for the first one to commit.
 *
 * @since 0.1
 */
public final class InboxStore {

	/** Longer error texts are cut to this many characters. */
	public static final int MAX_ERROR_LENGTH = 4000;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String receive;

	private final String markProcessed;

	private final String recordFailure;

	/**
	 * Creates a store over the inbox table of {@code tables}.
	 * @param dataSource the database; the inbox transactions must be managed for this same DataSource
	 * @param tables where the tables are (names validated by {@link OutboxTables})
	 */
	public InboxStore(DataSource dataSource, OutboxTables tables) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.jdbc = new JdbcTemplate(dataSource);
		String table = tables.qualifiedInboxState();
		// The upsert locks the row; a concurrent delivery of the same message waits here until the
		// first transaction ends, then sees its processed_at.
		this.receive = "INSERT INTO " + table + " AS inbox (message_id, consumer_id) VALUES (?, ?) "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1 "
				+ "RETURNING inbox.processed_at IS NOT NULL AS processed, inbox.attempts";
		this.markProcessed = "UPDATE " + table + " SET processed_at = now() "
				+ "WHERE message_id = ? AND consumer_id = ? AND processed_at IS NULL";
		// Inserts the row when the failed transaction rolled its insert back; leaves a row that a
		// concurrent delivery processed meanwhile alone (no row is returned then).
		this.recordFailure = "INSERT INTO " + table + " AS inbox (message_id, consumer_id, attempts, last_error, faulted_at) "
				+ "VALUES (?, ?, 1, ?, CASE WHEN 1 >= ? THEN now() END) "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1, "
				+ "attempts = inbox.attempts + 1, last_error = excluded.last_error, "
				+ "faulted_at = CASE WHEN inbox.attempts + 1 >= ? THEN now() ELSE inbox.faulted_at END "
				+ "WHERE inbox.processed_at IS NULL "
				+ "RETURNING inbox.attempts, inbox.faulted_at IS NOT NULL AS faulted";
	}

	/**
	 * Records a delivery: inserts the row, or counts one more receipt of an existing one and locks
	 * it until the current transaction ends.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @return whether the consumer processed the message already, and its failed attempts so far
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 */
	public Receipt receive(UUID messageId, String consumerId) {
		requireTransaction();
		Receipt receipt = this.jdbc.queryForObject(this.receive,
				(row, index) -> new Receipt(row.getBoolean("processed"), row.getInt("attempts")), messageId, consumerId);
		return Objects.requireNonNull(receipt, "the inbox upsert returned no row");
	}

	/**
	 * Marks a received message processed, in the transaction that ran its handler.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @throws IllegalStateException when no transaction manages this store's DataSource, or the row
	 * was not received in it
	 */
	public void markProcessed(UUID messageId, String consumerId) {
		requireTransaction();
		if (this.jdbc.update(this.markProcessed, messageId, consumerId) != 1) {
			throw new IllegalStateException("Inbox row of message " + messageId + " for consumer '" + consumerId
					+ "' is missing or processed already; receive(...) it in the same transaction first");
		}
	}

	/**
	 * Records a failed delivery: one more attempt and its error, inserting the row when there is
	 * none, and marks the row faulted once the attempts reach {@code faultAtAttempts}.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @param error what went wrong; cut to {@value #MAX_ERROR_LENGTH} characters, U+0000 and unpaired
	 * surrogates stored as U+FFFD ({@link PostgresText#column(String, int)})
	 * @param faultAtAttempts the attempts at which the message is given up, 1 to give it up now
	 * @return the attempts and whether the row is faulted, or {@literal null} when the consumer has
	 * processed the message meanwhile (nothing is recorded then)
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 */
	public @Nullable Failure recordFailure(UUID messageId, String consumerId, String error, int faultAtAttempts) {
		requireTransaction();
		String text = PostgresText.column(error, MAX_ERROR_LENGTH);
		List<Failure> rows = this.jdbc.query(this.recordFailure,
				(row, index) -> new Failure(row.getInt("attempts"), row.getBoolean("faulted")), messageId, consumerId,
				text, faultAtAttempts, faultAtAttempts);
		return rows.isEmpty() ? null : rows.get(0);
	}

	private void requireTransaction() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| !TransactionSynchronizationManager.hasResource(this.dataSource)) {
			throw new IllegalStateException("The inbox must be written in a transaction that manages its DataSource, "
					+ "so the inbox row commits atomically with the handler's work and locks out duplicates. Run it "
					+ "under the transaction manager of the DataSource given to InboxStore.");
		}
	}

	/**
	 * The state of an inbox row when a delivery arrives.
	 *
	 * @param processed whether the consumer processed the message already
	 * @param attempts the failed deliveries recorded so far
	 */
	public record Receipt(boolean processed, int attempts) {
	}

	/**
	 * The state of an inbox row after a failure was recorded.
	 *
	 * @param attempts the failed deliveries, this one included
	 * @param faulted whether the message is given up
	 */
	public record Failure(int attempts, boolean faulted) {
	}

}
