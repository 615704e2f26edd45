package dev.waybill.inbox.internal.jdbc;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.PostgresText;

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

	private final InboxSql sql;


	/**
	 * Creates a store over the inbox table of {@code tables}.
	 * @param dataSource the database; the inbox transactions must be managed for this same DataSource
	 * @param tables where the tables are (names validated by {@link OutboxTables})
	 */
	public InboxStore(DataSource dataSource, OutboxTables tables) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.jdbc = new JdbcTemplate(dataSource);
		this.sql = new InboxSql(tables);
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
		Receipt receipt = this.jdbc.queryForObject(this.sql.receive, (row, index) -> new Receipt(row.getBoolean("processed"),
				row.getBoolean("faulted"), row.getInt("attempts")), messageId, consumerId);
		return Objects.requireNonNull(receipt, "the inbox upsert returned no row");
	}

	/**
	 * Records the deliveries of a batch in one statement and marks their messages processed, as
	 * {@link #receive(UUID, String)} and then {@link #markProcessed(UUID, String)} do for each, on
	 * the assumption that the current transaction handles every one: a row that is neither
	 * processed nor faulted is inserted or counted, marked processed and returned; one processed
	 * or faulted already is left as it is and not returned (count it with
	 * {@link #countReceipts(List)}). Every row is locked until the current transaction ends, in key
	 * order, so two batches that share messages do not deadlock on them. A transaction that does
	 * not handle every delivery after all rolls back.
	 * @param received each (message id, consumer id) once, with how many of the batch's deliveries
	 * it stands for
	 * @return the rows the statement marked processed, by key
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 * @since 0.1
	 */
	public Map<Key, BatchReceipt> receive(List<Received> received) {
		requireTransaction();
		Map<Key, BatchReceipt> receipts = new HashMap<>();
		if (!received.isEmpty()) {
			this.jdbc.query(this.sql.receiveAll, ReceivedArrays.of(received), (RowCallbackHandler) (row) -> receipts
				.put(new Key(row.getObject(1, UUID.class), row.getString(2)), new BatchReceipt(row.getInt(3))));
		}
		return receipts;
	}

	/**
	 * Counts receipts of rows that {@link #receive(List)} found processed or faulted already, which
	 * it has locked.
	 * @param received each (message id, consumer id) once, with how many receipts to add
	 * @return each row's state, by key
	 * @throws IllegalStateException when no transaction manages this store's DataSource, or a row
	 * is missing
	 * @since 0.1
	 */
	public Map<Key, Receipt> countReceipts(List<Received> received) {
		requireTransaction();
		Map<Key, Receipt> receipts = new HashMap<>();
		if (received.isEmpty()) {
			return receipts;
		}
		this.jdbc.query(this.sql.countReceipts, ReceivedArrays.of(received), (RowCallbackHandler) (row) -> receipts.put(
				new Key(row.getObject(1, UUID.class), row.getString(2)),
				new Receipt(row.getBoolean(3), row.getBoolean(4), row.getInt(5))));
		if (receipts.size() != received.size()) {
			throw new IllegalStateException("Of " + received.size() + " inbox rows to count receipts of only "
					+ receipts.size() + " were found");
		}
		return receipts;
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
		if (this.jdbc.update(this.sql.markProcessed, messageId, consumerId) != 1) {
			throw new IllegalStateException("Inbox row of message " + messageId + " for consumer '" + consumerId
					+ "' is missing, processed or faulted already; receive(...) it in the same transaction first");
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
	 * @since 0.1
	 */
	public void markProcessed(UUID messageId, String consumerId, String note) {
		requireTransaction();
		if (this.jdbc.update(this.sql.markProcessedWithNote, PostgresText.column(note, MAX_ERROR_LENGTH), messageId,
				consumerId) != 1) {
			throw new IllegalStateException("Inbox row of message " + messageId + " for consumer '" + consumerId
					+ "' is missing, processed or faulted already; receive(...) it in the same transaction first");
		}
	}

	/**
	 * Returns the database's clock, read in the current transaction: a redelivery falls due by it
	 * (the relay's claim compares it with the database's {@code now()}), so a consumer host whose
	 * clock is skewed neither delays nor hurries its retries.
	 * @return the database's {@code clock_timestamp()}
	 * @throws IllegalStateException when no transaction manages this store's DataSource
	 */
	public Instant databaseNow() {
		requireTransaction();
		Instant now = this.jdbc.queryForObject("SELECT clock_timestamp()",
				(row, index) -> row.getTimestamp(1).toInstant());
		return Objects.requireNonNull(now, "the database returned no time");
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
		List<Failure> rows = this.jdbc.query(this.sql.recordFailure,
				(row, index) -> new Failure(true, false, row.getBoolean("faulted"), row.getInt("attempts")), messageId,
				consumerId, text, faultAtAttempts, faultAtAttempts);
		if (!rows.isEmpty()) {
			return rows.get(0);
		}
		// The upsert locked the row without changing it; this statement sees its committed state.
		Failure existing = this.jdbc.queryForObject(this.sql.finalState, (row, index) -> new Failure(false,
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
		return this.jdbc.update(this.sql.clearFault, messageId, consumerId) == 1;
	}

	/**
	 * Tells whether a consumer has a row of a message, in whatever state: it received the message.
	 * Reads the primary key, in a transaction of its own when the caller has none.
	 * @param messageId the message id
	 * @param consumerId the consumer id (its queue name)
	 * @return whether the row exists
	 */
	public boolean received(UUID messageId, String consumerId) {
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(consumerId, "consumerId must not be null");
		return Boolean.TRUE.equals(this.jdbc.queryForObject(this.sql.received, Boolean.class, messageId, consumerId));
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
	 * An inbox row's key.
	 *
	 * @param messageId the message id
	 * @param consumerId the consumer id
	 * @since 0.1
	 */
	public record Key(UUID messageId, String consumerId) {

		/**
		 * Checks the components.
		 */
		public Key {
			Objects.requireNonNull(messageId, "messageId must not be null");
			Objects.requireNonNull(consumerId, "consumerId must not be null");
		}

	}

	/**
	 * A row for {@link #receive(List)}.
	 *
	 * @param key the row
	 * @param receipts how many deliveries of the batch it stands for, at least 1
	 * @since 0.1
	 */
	public record Received(Key key, int receipts) {

		/**
		 * Checks the components.
		 */
		public Received {
			Objects.requireNonNull(key, "key must not be null");
			if (receipts < 1) {
				throw new IllegalArgumentException("receipts must be at least 1, was " + receipts);
			}
		}

	}

	/**
	 * A row {@link #receive(List)} marked processed.
	 *
	 * @param attempts the failed deliveries recorded before
	 * @since 0.1
	 */
	public record BatchReceipt(int attempts) {
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
