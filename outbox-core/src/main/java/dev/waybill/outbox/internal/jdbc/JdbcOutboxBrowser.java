package dev.waybill.outbox.internal.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.BodyPreviews;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.MessagePreview;
import dev.waybill.outbox.ScopeDetails;
import dev.waybill.outbox.ScopePage;
import dev.waybill.outbox.ScopeStatus;
import dev.waybill.outbox.ScopeSummary;

/**
 * The operators' queries on the outbox tables: pages of pending or dead scopes, one scope's
 * messages, and the deletion of dead scopes. Each runs as a statement of its own, never in the
 * caller's transaction. The lists read only the partial pending and dead indexes' rows.
 *
 * @since 0.1
 */
public final class JdbcOutboxBrowser {

	/** The largest page. */
	public static final int MAX_PAGE = 500;

	/** The most messages returned for one scope. */
	public static final int MAX_MESSAGES = 100;

	private final JdbcTemplate jdbc;

	final Map<ScopeStatus, String> page = new EnumMap<>(ScopeStatus.class);

	final Map<ScopeStatus, String> pageOfDestination = new EnumMap<>(ScopeStatus.class);

	final Map<ScopeStatus, String> count = new EnumMap<>(ScopeStatus.class);

	final Map<ScopeStatus, String> countOfDestination = new EnumMap<>(ScopeStatus.class);

	private final String one;

	private final String messages;

	private final String deleteDead;

	/**
	 * Creates the queries for a set of tables.
	 * @param dataSource the database
	 * @param tables where the tables are
	 */
	public JdbcOutboxBrowser(DataSource dataSource, OutboxTables tables) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		// Its own resource key: these statements never join a transaction the caller has open, and
		// each commits on its own, also from a pool that does not auto-commit.
		this.jdbc = new JdbcTemplate(new AutoCommitDataSource(dataSource));
		String state = tables.qualifiedOutboxState();
		String message = tables.qualifiedOutboxMessage();
		String columns = "SELECT s.id, s.status, s.created_at, greatest((extract(epoch FROM now() - s.created_at) * 1000)::bigint, 0) AS age_millis, s.attempts, s.next_attempt_at, "
				+ "s.last_error, s.message_count, s.consumer_id, s.inbound_message_id, "
				+ "ARRAY(SELECT DISTINCT m.destination FROM " + message + " m WHERE m.outbox_id = s.id) AS destinations, "
				+ "ARRAY(SELECT DISTINCT m.routing_key FROM " + message + " m WHERE m.outbox_id = s.id) AS routing_keys, "
				+ "ARRAY(SELECT DISTINCT m.message_type FROM " + message + " m WHERE m.outbox_id = s.id) AS message_types "
				+ "FROM " + state + " s ";
		String byDestination = " AND EXISTS (SELECT 1 FROM " + message
				+ " m WHERE m.outbox_id = s.id AND m.destination = ?)";
		String order = " ORDER BY s.created_at, s.id LIMIT ? OFFSET ?";
		// Per status, each over its indexes: pending over the ready and ordering ones, dead over its own.
		for (ScopeStatus status : ScopeStatus.values()) {
			String where = "WHERE " + ((status == ScopeStatus.PENDING) ? OutboxTables.pendingCondition("s")
					: "s.status = '" + status.column() + "'");
			this.page.put(status, columns + where + order);
			this.pageOfDestination.put(status, columns + where + byDestination + order);
			this.count.put(status, "SELECT count(*) FROM " + state + " s " + where);
			this.countOfDestination.put(status, this.count.get(status) + byDestination);
		}
		this.one = columns + "WHERE s.id = ?";
		this.messages = "SELECT message_id, destination, routing_key, message_type, content_type, headers::text AS headers, "
				+ "substring(body FROM 1 FOR ?) AS preview, octet_length(body) AS body_size, correlation_id, created_at, "
				+ "not_before FROM " + message + " WHERE outbox_id = ? ORDER BY sequence_number LIMIT ?";
		this.deleteDead = "DELETE FROM " + state + " WHERE status = 'dead' AND id = ANY(?)";
	}

	/**
	 * Returns a page of scopes of one status, oldest first.
	 * @param status the status
	 * @param destination only scopes with a message for this exchange, or {@literal null}
	 * @param offset matching scopes to skip
	 * @param limit the page size
	 * @return the page
	 * @throws IllegalArgumentException when offset or limit is out of range
	 */
	public ScopePage scopes(ScopeStatus status, @Nullable String destination, int offset, int limit) {
		Objects.requireNonNull(status, "status must not be null");
		if (offset < 0 || limit < 1 || limit > MAX_PAGE) {
			throw new IllegalArgumentException("offset must be at least 0 and limit 1 to " + MAX_PAGE + ", were "
					+ offset + " and " + limit);
		}
		if (destination != null && destination.indexOf('\u0000') >= 0) {
			// PostgreSQL refuses U+0000 in text, and publish refuses it in a destination: no scope has one
			throw new IllegalArgumentException("destination must not contain U+0000");
		}
		List<ScopeSummary> scopes;
		Long total;
		if (destination == null) {
			scopes = this.jdbc.query(this.page.get(status), (row, n) -> summary(row), limit, offset);
			total = this.jdbc.queryForObject(this.count.get(status), Long.class);
		}
		else {
			scopes = this.jdbc.query(this.pageOfDestination.get(status), (row, n) -> summary(row), destination, limit,
					offset);
			total = this.jdbc.queryForObject(this.countOfDestination.get(status), Long.class, destination);
		}
		return new ScopePage(scopes, (total != null) ? total : 0, offset, limit);
	}

	/**
	 * Returns one scope with its first messages, unless it is published (or gone).
	 * @param scopeId the scope id
	 * @param maxMessages the most messages, 1 to {@value #MAX_MESSAGES}
	 * @param previewBytes the most body bytes per message, 0 to {@value BodyPreviews#BodyPreviews.MAX_PREVIEW_BYTES}
	 * @return the scope, empty when there is none pending or dead with that id
	 */
	public Optional<ScopeDetails> scope(UUID scopeId, int maxMessages, int previewBytes) {
		Objects.requireNonNull(scopeId, "scopeId must not be null");
		if (maxMessages < 1 || maxMessages > MAX_MESSAGES || previewBytes < 0 || previewBytes > BodyPreviews.MAX_PREVIEW_BYTES) {
			throw new IllegalArgumentException("maxMessages must be 1 to " + MAX_MESSAGES + " and previewBytes 0 to "
					+ BodyPreviews.MAX_PREVIEW_BYTES + ", were " + maxMessages + " and " + previewBytes);
		}
		List<ScopeSummary> found = this.jdbc.query(this.one, (row, n) -> summary(row), scopeId);
		if (found.isEmpty() || found.get(0) == null) {
			return Optional.empty();
		}
		List<MessagePreview> previews = this.jdbc.query(this.messages, (row, n) -> preview(row), previewBytes, scopeId,
				maxMessages);
		return Optional.of(new ScopeDetails(found.get(0), previews));
	}

	/**
	 * Deletes dead scopes and, by cascade, their messages.
	 * @param scopeIds the scope ids; others than dead ones are left alone
	 * @return how many scopes were deleted
	 */
	public int deleteDead(Collection<UUID> scopeIds) {
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.jdbc.update((connection) -> {
			var statement = connection.prepareStatement(this.deleteDead);
			statement.setArray(1, connection.createArrayOf("uuid", scopeIds.toArray()));
			return statement;
		});
	}

	private static @Nullable ScopeSummary summary(ResultSet row) throws SQLException {
		String status = row.getString("status");
		if ("published".equals(status)) {
			return null;
		}
		return new ScopeSummary(row.getObject("id", UUID.class), ScopeStatus.parse(status),
				instant(row.getTimestamp("created_at")), Duration.ofMillis(row.getLong("age_millis")), row.getInt("attempts"),
				instant(row.getTimestamp("next_attempt_at")), row.getString("last_error"), row.getInt("message_count"),
				strings(row.getArray("destinations")), strings(row.getArray("routing_keys")),
				strings(row.getArray("message_types")), row.getString("consumer_id"),
				row.getObject("inbound_message_id", UUID.class));
	}

	private static MessagePreview preview(ResultSet row) throws SQLException {
		byte[] preview = row.getBytes("preview");
		int size = row.getInt("body_size");
		boolean truncated = preview.length < size;
		Timestamp notBefore = row.getTimestamp("not_before");
		return new MessagePreview(row.getObject("message_id", UUID.class), row.getString("destination"),
				row.getString("routing_key"), row.getString("message_type"), row.getString("content_type"),
				BodyPreviews.headers(HeaderCodec.read(row.getString("headers"))), BodyPreviews.text(preview, truncated),
				size, truncated, row.getString("correlation_id"), instant(row.getTimestamp("created_at")),
				(notBefore != null) ? notBefore.toInstant() : null);
	}

	private static Instant instant(Timestamp timestamp) {
		return timestamp.toInstant();
	}

	private static List<String> strings(@Nullable Array array) throws SQLException {
		if (array == null) {
			return List.of();
		}
		Object[] values = (Object[]) array.getArray();
		return new ArrayList<>(Arrays.stream(values).map(String::valueOf).toList());
	}

}
