package dev.waybill.outbox.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * One claimed scope as its rows of {@link OutboxSql#claim} arrive, read by column index (the
 * {@code CLAIM_*} constants), times as epoch microseconds.
 *
 * @since 0.1
 */
final class ClaimedRows {

	private final UUID id;

	private final Instant createdAt;

	private final int attempts;

	private final String leaseOwner;

	private final Instant leaseUntil;

	private final List<OutboxMessage> messages = new ArrayList<>();

	private ClaimedRows(UUID id, Instant createdAt, int attempts, String leaseOwner, Instant leaseUntil) {
		this.id = id;
		this.createdAt = createdAt;
		this.attempts = attempts;
		this.leaseOwner = leaseOwner;
		this.leaseUntil = leaseUntil;
	}

	/** Starts a scope from the first of its rows. */
	static ClaimedRows first(UUID id, ResultSet row, String leaseOwner) throws SQLException {
		return new ClaimedRows(id, micros(row.getLong(OutboxSql.CLAIM_SCOPE_CREATED)), row.getInt(OutboxSql.CLAIM_ATTEMPTS),
				leaseOwner, micros(row.getLong(OutboxSql.CLAIM_LEASE_UNTIL)));
	}

	/** Adds the row's message; a row that cannot be read throws and adds nothing. */
	void add(UUID messageId, ResultSet row) throws SQLException {
		String headers = row.getString(OutboxSql.CLAIM_HEADERS);
		this.messages.add(new OutboxMessage(messageId, row.getString(OutboxSql.CLAIM_DESTINATION),
				row.getString(OutboxSql.CLAIM_ROUTING_KEY), row.getString(OutboxSql.CLAIM_MESSAGE_TYPE),
				row.getString(OutboxSql.CLAIM_CONTENT_TYPE), (headers != null) ? HeaderCodec.read(headers) : Map.of(),
				row.getBytes(OutboxSql.CLAIM_BODY), row.getString(OutboxSql.CLAIM_CORRELATION_ID),
				row.getString(OutboxSql.CLAIM_CONVERSATION_ID), row.getString(OutboxSql.CLAIM_SOURCE_HOST),
				micros(row.getLong(OutboxSql.CLAIM_CREATED)), nullableMicros(row, OutboxSql.CLAIM_NOT_BEFORE),
				nullableMicros(row, OutboxSql.CLAIM_EXPIRES)));
	}

	ClaimedScope toClaimedScope() {
		return new ClaimedScope(this.id, this.createdAt, this.attempts, this.leaseOwner, this.leaseUntil, this.messages);
	}

	private static @Nullable Instant nullableMicros(ResultSet row, int column) throws SQLException {
		long micros = row.getLong(column);
		return row.wasNull() ? null : micros(micros);
	}

	static Instant micros(long epochMicros) {
		return Instant.ofEpochSecond(Math.floorDiv(epochMicros, 1_000_000L), Math.floorMod(epochMicros, 1_000_000L) * 1_000L);
	}

}
