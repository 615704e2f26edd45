package dev.waybill.inbox.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import dev.waybill.inbox.InboxEntry;
import dev.waybill.inbox.InboxLookup;
import dev.waybill.kernel.OutboxTables;

/**
 * The {@link InboxLookup} over JDBC: reads by the primary key's leading column, outside any
 * transaction of the caller. Thread-safe.
 */
public final class JdbcInboxLookup implements InboxLookup {

	private final JdbcTemplate jdbc;

	private final String find;

	/**
	 * Creates the lookup.
	 * @param dataSource the inbox's database
	 * @param tables where the tables are
	 */
	public JdbcInboxLookup(DataSource dataSource, OutboxTables tables) {
		this.jdbc = new JdbcTemplate(new DelegatingDataSource(Objects.requireNonNull(dataSource, "dataSource must not be null")));
		this.find = "SELECT consumer_id, received_at, receive_count, attempts, processed_at, faulted_at, last_error FROM "
				+ tables.qualifiedInboxState() + " WHERE message_id = ? ORDER BY consumer_id";
	}

	/**
	 * Returns what each consumer did with a message.
	 * @param messageId the message id
	 * @return one entry per consumer that received it, by consumer id; empty when none did (or its rows were purged)
	 */
	@Override
	public List<InboxEntry> find(UUID messageId) {
		Objects.requireNonNull(messageId, "messageId must not be null");
		return this.jdbc.query(this.find, (row, n) -> entry(row), messageId);
	}

	private static InboxEntry entry(ResultSet row) throws SQLException {
		Timestamp processed = row.getTimestamp("processed_at");
		Timestamp faulted = row.getTimestamp("faulted_at");
		String state = (processed != null) ? "processed" : (faulted != null) ? "faulted" : "in-progress";
		return new InboxEntry(row.getString("consumer_id"), state, row.getTimestamp("received_at").toInstant(),
				row.getInt("receive_count"), row.getInt("attempts"), instant(processed), instant(faulted),
				row.getString("last_error"));
	}

	private static java.time.@Nullable Instant instant(@Nullable Timestamp timestamp) {
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

}
