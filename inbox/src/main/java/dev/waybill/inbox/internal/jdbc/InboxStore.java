package dev.waybill.inbox.internal.jdbc;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.internal.jdbc.OutboxTables;
import dev.waybill.outbox.internal.jdbc.PostgresText;

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

	private final String markProcessedWithNote;

	private final String markAllProcessed;

	private final String recordFailure;

	private final String finalState;

	private final String clearFault;

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
		// first transaction ends, then sees its processed_at or faulted_at.
		this.receive = "INSERT INTO " + table + " AS inbox (message_id, consumer_id) VALUES (?, ?) "
				+ "ON CONFLICT (message_id, consumer_id) DO UPDATE SET receive_count = inbox.receive_count + 1 "
				+ "RETURNING inbox.processed_at IS NOT NULL AS processed, inbox.faulted_at IS NOT NULL AS faulted, "
				+ "inbox.attempts";
		// Processed and faulted exclude each other: a row reaches one final state only.
		this.markProcessed = "UPDATE " + table + " SET processed_at = now() "
				+ "WHERE message_id = ? AND consumer_id = ? AND processed_at IS NULL AND faulted_at IS NULL";
		// markProcessed for many rows at once; also counts the receipts of copies found in memory.
		this.markAllProcessed = "UPDATE " + table + " AS inbox SET processed_at = now(), "
				+ "receive_count = inbox.receive_count + t.copies "
				+ "FROM unnest(?::uuid[], ?::text[], ?::integer[]) AS t(message_id, consumer_id, copies) "
				+ "WHERE inbox.message_id = t.message_id AND inbox.consumer_id = t.consumer_id "
				+ "AND inbox.processed_at IS NULL AND inbox.faulted_at IS NULL";
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

	/**
	 * Records a delivery: inserts the row, or counts one more receipt of an existing one and locks
	 * it until the current transaction ends.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @return whether the consumer processed the message already or gave it up (faulted), and its
	 * failed attempts so far
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 */
	public Receipt receive(UUID messageId, String consumerId) {
		requireTransaction();
		Receipt receipt = this.jdbc.queryForObject(this.receive, (row, index) -> new Receipt(row.getBoolean("processed"),
				row.getBoolean("faulted"), row.getInt("attempts")), messageId, consumerId);
		return Objects.requireNonNull(receipt, "the inbox upsert returned no row");
	}

	/**
	 * Marks a received message processed, in the transaction that ran its handler.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @throws IllegalStateException when no transaction manages this store's DataSource, or the row
	 * was not received in it, or it is processed or faulted already
	 */
	public void markProcessed(UUID messageId, String consumerId) {
		requireTransaction();
		if (this.jdbc.update(this.markProcessed, messageId, consumerId) != 1) {
			throw new IllegalStateException("Inbox row of message " + messageId + " for consumer '" + consumerId
					+ "' is missing, processed or faulted already; receive(...) it in the same transaction first");
		}
	}

	/**
	 * Marks received messages processed in one statement, in the transaction that ran their
	 * handlers, as {@link #markProcessed(UUID, String)} does for each; a row's receive count goes up
	 * by its {@link Handled#copies()}.
	 * @param handled the rows, each (message id, consumer id) once
	 * @throws IllegalStateException when no transaction manages this store's DataSource, or a row
	 * was not received in it, or it is processed or faulted already
	 * @since 0.4
	 */
	public void markProcessed(List<Handled> handled) {
		requireTransaction();
		if (handled.isEmpty()) {
			return;
		}
		UUID[] ids = new UUID[handled.size()];
		String[] consumers = new String[handled.size()];
		Integer[] copies = new Integer[handled.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = handled.get(i).messageId();
			consumers[i] = handled.get(i).consumerId();
			copies[i] = handled.get(i).copies();
		}
		int updated = this.jdbc.update(this.markAllProcessed, (statement) -> {
			statement.setArray(1, statement.getConnection().createArrayOf("uuid", ids));
			statement.setArray(2, statement.getConnection().createArrayOf("text", consumers));
			statement.setArray(3, statement.getConnection().createArrayOf("integer", copies));
		});
		if (updated != ids.length) {
			throw new IllegalStateException("Of " + ids.length + " inbox rows to mark processed only " + updated
					+ " were received and neither processed nor faulted; receive(...) them in the same transaction first");
		}
	}

	/**
	 * Marks a received message processed with a note in its last error, e.g. why its handler's
	 * failure was ignored, in the transaction that received it.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @param note the note; cut to {@value #MAX_ERROR_LENGTH} characters
	 * @throws IllegalStateException when no transaction manages this store's DataSource, or the row
	 * was not received in it, or it is processed or faulted already
	 * @since 0.3
	 */
	public void markProcessed(UUID messageId, String consumerId, String note) {
		requireTransaction();
		if (this.jdbc.update(this.markProcessedWithNote, PostgresText.column(note, MAX_ERROR_LENGTH), messageId,
				consumerId) != 1) {
			throw new IllegalStateException("Inbox row of message " + messageId + " for consumer '" + consumerId
					+ "' is missing, processed or faulted already; receive(...) it in the same transaction first");
		}
	}

	/**
	 * Records a failed delivery: one more attempt and its error, inserting the row when there is
	 * none, and marks the row faulted once the attempts reach {@code faultAtAttempts}. A row in a
	 * final state, processed or faulted (by a concurrent delivery), is left alone.
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @param error what went wrong; cut to {@value #MAX_ERROR_LENGTH} characters, U+0000 and unpaired
	 * surrogates stored as U+FFFD ({@link PostgresText#column(String, int)})
	 * @param faultAtAttempts the attempts at which the message is given up, 1 to give it up now
	 * @return the attempts and whether the row is faulted now, or, when nothing was recorded, the
	 * final state the row had already ({@link Failure#recorded()} false)
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 */
	public Failure recordFailure(UUID messageId, String consumerId, String error, int faultAtAttempts) {
		requireTransaction();
		String text = PostgresText.column(error, MAX_ERROR_LENGTH);
		List<Failure> rows = this.jdbc.query(this.recordFailure,
				(row, index) -> new Failure(true, false, row.getBoolean("faulted"), row.getInt("attempts")), messageId,
				consumerId, text, faultAtAttempts, faultAtAttempts);
		if (!rows.isEmpty()) {
			return rows.get(0);
		}
		// The upsert locked the row without changing it; this statement sees its committed state.
		Failure existing = this.jdbc.queryForObject(this.finalState, (row, index) -> new Failure(false,
				row.getBoolean("processed"), row.getBoolean("faulted"), row.getInt("attempts")), messageId, consumerId);
		return Objects.requireNonNull(existing, "the inbox row returned no state");
	}

	/**
	 * Clears the fault of a message given up by a consumer, so that its next delivery is new work
	 * again: the handler runs, with all its attempts. A row that is not faulted, or was processed, is
	 * left alone. Joins the current transaction, if any; else commits at once.
	 * @param messageId the message id
	 * @param consumerId the consumer id (its queue name)
	 * @return whether a fault was cleared
	 */
	public boolean clearFault(UUID messageId, String consumerId) {
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(consumerId, "consumerId must not be null");
		return this.jdbc.update(this.clearFault, messageId, consumerId) == 1;
	}

	/**
	 * Returns the DataSource this store writes to, whose connection the inbox transaction holds.
	 * @return the DataSource
	 */
	public DataSource dataSource() {
		return this.dataSource;
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
	 * @param faulted whether the consumer gave the message up (it went to the error queue) and no
	 * operator cleared the fault since
	 * @param attempts the failed deliveries recorded so far
	 */
	public record Receipt(boolean processed, boolean faulted, int attempts) {
	}

	/**
	 * A message a consumer handled, to mark processed.
	 *
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @param copies further receipts of the message in the same transaction, not upserted, that its
	 * receive count must include
	 * @since 0.4
	 */
	public record Handled(UUID messageId, String consumerId, int copies) {

		/**
		 * Checks the components.
		 */
		public Handled {
			Objects.requireNonNull(messageId, "messageId must not be null");
			Objects.requireNonNull(consumerId, "consumerId must not be null");
			if (copies < 0) {
				throw new IllegalArgumentException("copies must be at least 0, was " + copies);
			}
		}

	}

	/**
	 * The state of an inbox row after {@link #recordFailure}.
	 *
	 * @param recorded whether the failure was recorded; {@literal false} when the row was processed or
	 * faulted already
	 * @param processed whether the consumer processed the message (then nothing was recorded)
	 * @param faulted whether the message is given up, now or before
	 * @param attempts the failed deliveries, this one included when recorded
	 */
	public record Failure(boolean recorded, boolean processed, boolean faulted, int attempts) {
	}

}
