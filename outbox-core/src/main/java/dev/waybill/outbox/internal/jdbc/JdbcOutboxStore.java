package dev.waybill.outbox.internal.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.PostgresText;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.internal.DirectScopes;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * The PostgreSQL outbox over JDBC. {@link #write(OutboxScope)} runs on the connection of the
 * current Spring transaction; the relay operations run on connections of their own, each one
 * statement that commits by itself.
 *
 * @since 0.1
 */
public final class JdbcOutboxStore implements OutboxWriter, OutboxStore {

	private static final Log logger = LogFactory.getLog(JdbcOutboxStore.class);

	/** Longer error texts are cut to this many characters. */
	static final int MAX_ERROR_LENGTH = 4000;

	private final DataSource dataSource;

	private final OutboxTables tables;

	private final OutboxSql sql;

	private final JdbcTemplate transactional;

	private final JdbcTemplate autonomous;

	private volatile @Nullable DirectDispatcher directDispatcher;

	/**
	 * Whether the database's {@code default_transaction_isolation}, for this store's role, is
	 * READ COMMITTED; read at the first claim (a DBA's change is seen after a restart).
	 */
	private volatile @Nullable Boolean readCommittedByDefault;

	/**
	 * Creates a store over the given tables.
	 * @param dataSource the database; the business transactions must be managed for this same DataSource
	 * @param tables where the tables are
	 */
	public JdbcOutboxStore(DataSource dataSource, OutboxTables tables) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
		this.tables = Objects.requireNonNull(tables, "tables must not be null");
		this.sql = new OutboxSql(tables);
		this.transactional = new JdbcTemplate(dataSource);
		// A distinct DataSource object is a distinct transaction resource key, so relay statements
		// never join a transaction the calling thread happens to have open; and each commits on its
		// own also where the pool hands out connections with auto-commit off.
		this.autonomous = new JdbcTemplate(new AutoCommitDataSource(dataSource));
	}

	/**
	 * Returns the tables this store uses.
	 * @return the tables
	 */
	public OutboxTables tables() {
		return this.tables;
	}

	/**
	 * Lets this process's relay publish the scopes written here right after their transaction
	 * commits, without claiming them: each scope it can take is written already leased to it.
	 * @param dispatcher the relay's dispatcher, or {@literal null} to write every scope unleased
	 * @since 0.4
	 */
	public void setDirectDispatcher(@Nullable DirectDispatcher dispatcher) {
		this.directDispatcher = dispatcher;
	}

	@Override
	public void checkTransaction() {
		if (!TransactionSynchronizationManager.hasResource(this.dataSource)) {
			throw new IllegalStateException("The current transaction does not manage the DataSource Waybill writes "
					+ "the outbox to, so its messages could not commit atomically with it. Run the publishing method "
					+ "under the transaction manager of that DataSource (check @Outbox(transactionManager = ...)).");
		}
	}

	@Override
	public void write(OutboxScope scope) {
		// The transaction's connection itself: JdbcTemplate.execute would wrap it in a proxy that
		// makes every JDBC call on the write path a reflective one.
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try {
			write(connection, scope);
		}
		catch (SQLException ex) {
			DataAccessException translated = this.transactional.getExceptionTranslator()
				.translate("Writing outbox scope " + scope.id(), null, ex);
			throw (translated != null) ? translated
					: new UncategorizedSQLException("Writing outbox scope " + scope.id(), null, ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/**
	 * Writes a scope and its messages, in order, in one statement on the given connection, for
	 * callers that hold the transaction's connection themselves (the Hibernate integration writes
	 * through its session's connection).
	 * @param connection the connection of the transaction to write in, must not be {@literal null}
	 * @param scope the scope to write, must not be {@literal null}
	 * @return the number of message rows written
	 * @throws SQLException when the database refuses the statement
	 * @since 0.1
	 */
	public int write(Connection connection, OutboxScope scope) throws SQLException {
		// One scope per ordering key (a transaction that touched two aggregates writes two), each
		// key's lock taken before any is written and held until commit: see OutboxSql.write.
		List<OutboxScope> parts = scope.perOrderingKey();
		List<String> keys = new ArrayList<>();
		for (OutboxScope part : parts) {
			String key = part.orderingKey();
			if (key != null) {
				keys.add(key);
			}
		}
		if (!keys.isEmpty()) {
			try (PreparedStatement lock = connection.prepareStatement(this.sql.lockKeys)) {
				lock.setArray(1, connection.createArrayOf("text", keys.toArray()));
				lock.executeQuery().close();
			}
		}
		// The part without an ordering key is leased to this process's relay when it can publish it
		// right after the commit; keyed parts are claimed in their keys' order.
		DirectDispatcher dispatcher = this.directDispatcher;
		DirectDispatcher.Lease lease = null;
		if (dispatcher != null) {
			OutboxScope unkeyed = null;
			for (OutboxScope part : parts) {
				if (part.orderingKey() == null) {
					unkeyed = part;
				}
			}
			lease = DirectScopes.reserve(dispatcher, unkeyed, parts.size() > ((unkeyed != null) ? 1 : 0), connection);
		}
		String leaseOwner = (lease != null) ? lease.owner() : null;
		Long leaseMillis = (lease != null) ? lease.duration().toMillis() : null;
		if (parts.size() == 1 && parts.get(0).messages().size() == 1) {
			return writeOne(connection, scope, parts.get(0), leaseOwner, leaseMillis);
		}
		List<OutboxMessage> messages = new ArrayList<>();
		List<Object> outboxIds = new ArrayList<>();
		for (OutboxScope part : parts) {
			for (OutboxMessage message : part.messages()) {
				messages.add(message);
				outboxIds.add(part.id());
			}
		}
		try (PreparedStatement statement = connection.prepareStatement(this.sql.write)) {
			statement.setObject(1, scope.inboundMessageId());
			statement.setString(2, scope.consumerId());
			int index = 3;
			statement.setArray(index++, connection.createArrayOf("uuid", parts.stream().map(OutboxScope::id).toArray()));
			statement.setArray(index++, connection.createArrayOf("text", parts.stream()
				.map((part) -> (part.notBefore() != null) ? part.notBefore().toString() : null).toArray()));
			statement.setArray(index++, connection.createArrayOf("text", parts.stream().map(OutboxScope::orderingKey).toArray()));
			statement.setArray(index++, connection.createArrayOf("int4", parts.stream().map((part) -> part.messages().size()).toArray()));
			statement.setString(index++, leaseOwner);
			statement.setObject(index++, leaseMillis, Types.BIGINT);
			statement.setArray(index++, connection.createArrayOf("uuid", outboxIds.toArray()));
			statement.setArray(index++, array(connection, "uuid", messages, OutboxMessage::messageId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::destination));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::routingKey));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::messageType));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::contentType));
			statement.setArray(index++, array(connection, "text", messages, (m) -> HeaderCodec.write(m.headers())));
			statement.setArray(index++, connection.createArrayOf("bytea", messages.stream().map(OutboxMessage::body).toArray(byte[][]::new)));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::correlationId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::conversationId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::sourceHost));
			statement.setArray(index++, array(connection, "text", messages, (m) -> m.sentAt().toString()));
			statement.setArray(index++, array(connection, "text", messages, (m) -> m.notBefore() != null ? m.notBefore().toString() : null));
			statement.setArray(index, array(connection, "text", messages, (m) -> m.expiresAt() != null ? m.expiresAt().toString() : null));
			return statement.executeUpdate();
		}
	}

	private int writeOne(Connection connection, OutboxScope scope, OutboxScope part, @Nullable String leaseOwner,
			@Nullable Long leaseMillis) throws SQLException {
		OutboxMessage message = part.messages().get(0);
		try (PreparedStatement statement = connection.prepareStatement(this.sql.writeOne)) {
			statement.setObject(1, part.id());
			statement.setString(2, text(part.notBefore()));
			statement.setObject(3, scope.inboundMessageId());
			statement.setString(4, scope.consumerId());
			statement.setString(5, part.orderingKey());
			statement.setString(6, leaseOwner);
			statement.setObject(7, leaseMillis, Types.BIGINT);
			statement.setObject(8, message.messageId());
			statement.setString(9, message.destination());
			statement.setString(10, message.routingKey());
			statement.setString(11, message.messageType());
			statement.setString(12, message.contentType());
			statement.setString(13, HeaderCodec.write(message.headers()));
			statement.setBytes(14, message.body());
			statement.setString(15, message.correlationId());
			statement.setString(16, message.conversationId());
			statement.setString(17, message.sourceHost());
			statement.setString(18, message.sentAt().toString());
			statement.setString(19, text(message.notBefore()));
			statement.setString(20, text(message.expiresAt()));
			return statement.executeUpdate();
		}
	}

	private static @Nullable String text(@Nullable Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return claim(this.autonomous, leaseOwner, lease, limit);
	}

	private boolean readCommittedByDefault(Connection connection) throws SQLException {
		Boolean known = this.readCommittedByDefault;
		if (known == null) {
			try (Statement statement = connection.createStatement();
					ResultSet row = statement.executeQuery("SHOW default_transaction_isolation")) {
				known = row.next() && "read committed".equalsIgnoreCase(row.getString(1));
			}
			this.readCommittedByDefault = known;
		}
		return known;
	}

	/**
	 * Runs the claim in a transaction of its own and hands its commit to {@code commitOn}: the
	 * statement's row locks keep the scopes from other claimers until the commit, and a rollback
	 * (the process died, the commit failed) makes it no claim at all. A claim that found nothing,
	 * or whose commit {@code commitOn} rejects, commits here, and fails if that commit fails.
	 */
	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		Connection connection = DataSourceUtils.getConnection(this.autonomous.getDataSource());
		boolean handedOver = false;
		try {
			// The claim's consistency rests on its row locks (SKIP LOCKED) and the lease, not on the
			// isolation level. Under a database default of REPEATABLE READ or SERIALIZABLE (a DBA's
			// default_transaction_isolation) its handed-over commit, run after the relay published,
			// failed with 40001 when a business transaction had read what it claimed and written what
			// it read, and every scope it had published went out again. The default is read once, so
			// that the usual READ COMMITTED costs no round trip per claim.
			boolean setIsolation = !readCommittedByDefault(connection);
			connection.setAutoCommit(false);
			if (setIsolation) {
				try (Statement isolation = connection.createStatement()) {
					isolation.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
				}
			}
			List<ClaimedScope> scopes = claim(new JdbcTemplate(new SingleConnectionDataSource(connection, true)),
					leaseOwner, lease, limit);
			if (!scopes.isEmpty()) {
				try {
					commitOn.execute(() -> commitAndClose(connection, scopes.size()));
					handedOver = true;
				}
				catch (RejectedExecutionException ex) {
					// committed below, before returning
				}
			}
			if (!handedOver) {
				// A commit that fails fails the claim: a connection lost at the commit of a claim that
				// found nothing is the outage it is, not a claim that succeeded.
				connection.commit();
			}
			return scopes;
		}
		catch (SQLException ex) {
			// A state Spring does not know (say 26000, a prepared statement a pooler lost) translates
			// to null: keep the driver's exception, the one that tells what happened.
			DataAccessException translated = this.autonomous.getExceptionTranslator().translate("claim", this.sql.claim, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException("claim", this.sql.claim, ex);
		}
		finally {
			if (!handedOver) {
				commitAndClose(connection, 0);
			}
		}
	}

	private void commitAndClose(Connection connection, int scopes) {
		try {
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
		catch (SQLException | RuntimeException ex) {
			if (scopes > 0) {
				logger.warn("Waybill could not commit the claim of " + scopes + " scope(s); they are due again at once "
						+ "and what was published of them is published again: " + ex);
			}
			try {
				connection.rollback();
			}
			catch (SQLException | RuntimeException ignored) {
				// the connection is closed below; the database rolls back what it has not committed
			}
		}
		finally {
			try {
				connection.setAutoCommit(true);
			}
			catch (SQLException | RuntimeException ignored) {
				// a broken connection: the pool discards it
			}
			DataSourceUtils.releaseConnection(connection, this.autonomous.getDataSource());
		}
	}

	private List<ClaimedScope> claim(JdbcTemplate jdbc, String leaseOwner, Duration lease, int limit) {
		requireOwner(leaseOwner);
		if (lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("lease must be positive, was " + lease);
		}
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, was " + limit);
		}
		Map<UUID, ScopeRows> scopes = new LinkedHashMap<>();
		Map<UUID, String> unreadable = new LinkedHashMap<>();
		jdbc.query(this.sql.claim, (ResultSet row) -> {
			UUID id = row.getObject(OutboxSql.CLAIM_SCOPE_ID, UUID.class);
			ScopeRows scope = scopes.get(id);
			if (scope == null) {
				scope = new ScopeRows(id, micros(row.getLong(OutboxSql.CLAIM_SCOPE_CREATED)),
						row.getInt(OutboxSql.CLAIM_ATTEMPTS), leaseOwner, micros(row.getLong(OutboxSql.CLAIM_LEASE_UNTIL)));
				scopes.put(id, scope);
			}
			UUID messageId = row.getObject(OutboxSql.CLAIM_MESSAGE_ID, UUID.class);
			if (messageId != null) {
				try {
					scope.messages.add(claimedMessage(messageId, row));
				}
				catch (RuntimeException ex) {
					// A row Waybill did not write (edited by hand, an older tool): failing the whole
					// claim would fail every claim after it too, the row staying first in line.
					unreadable.putIfAbsent(id, "message " + messageId + " in " + this.tables.qualifiedOutboxMessage()
							+ " cannot be read: " + ex.getMessage());
				}
			}
		}, limit, leaseOwner, lease.toMillis(), lease.toMillis());
		// Permanent: dead at once with the reason, in the claim's transaction, as the relay does for
		// a message the broker can never accept; the other scopes of the claim are published.
		unreadable.forEach((id, reason) -> {
			String error = "Waybill cannot read this scope's rows (changed outside Waybill?): " + reason;
			jdbc.update(this.sql.deadLetter, truncate(error), id, leaseOwner);
			scopes.remove(id);
			logger.error("Waybill outbox scope " + id + " is dead: " + error);
		});
		return scopes.values().stream().map(ScopeRows::toClaimedScope).toList();
	}

	@Override
	public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		Object[] ids = scopeIds.toArray();
		int unkeyed = this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.markPublished);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setString(2, leaseOwner);
			return statement;
		});
		if (unkeyed == ids.length) {
			return unkeyed;
		}
		// Keyed scopes (or ones whose lease is lost, which neither statement marks).
		List<String> keys = new ArrayList<>();
		this.autonomous.query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.markPublishedKeyed);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setString(2, leaseOwner);
			statement.setArray(3, connection.createArrayOf("uuid", ids));
			return statement;
		}, (ResultSet row) -> {
			keys.add(row.getString(1));
		});
		promote(keys);
		return unkeyed + keys.size();
	}

	/**
	 * Makes the head of each key claimable, in a statement after the one that published or
	 * detached its predecessor, so that it sees a writer that committed meanwhile.
	 */
	private int promote(List<String> keys) {
		if (keys.isEmpty()) {
			return 0;
		}
		return this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.promote);
			statement.setArray(1, connection.createArrayOf("text", keys.stream().distinct().toArray()));
			return statement;
		});
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		if (scopeIds.isEmpty()) {
			return 0;
		}
		Object[] ids = scopeIds.toArray();
		List<String> keys = new ArrayList<>();
		this.autonomous.query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.skip);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setArray(2, connection.createArrayOf("uuid", ids));
			return statement;
		}, (ResultSet row) -> {
			keys.add(row.getString(1));
		});
		if (promote(keys) > 0) {
			notifyIfAny(1);
		}
		return keys.size();
	}

	@Override
	public int promoteHeldHeads() {
		return this.autonomous.update(this.sql.sweep);
	}

	@Override
	public int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		requireOwner(leaseOwner);
		if (lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("lease must be positive, was " + lease);
		}
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.renew);
			statement.setLong(1, lease.toMillis());
			statement.setLong(2, lease.toMillis());
			statement.setArray(3, connection.createArrayOf("uuid", scopeIds.toArray()));
			statement.setString(4, leaseOwner);
			return statement;
		});
	}

	@Override
	public boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		requireOwner(leaseOwner);
		return this.autonomous.update(this.sql.retryLater, Math.max(0, retryDelay.toMillis()), truncate(error), scopeId,
				leaseOwner) == 1;
	}

	@Override
	public boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		requireOwner(leaseOwner);
		return this.autonomous.update(this.sql.deadLetter, truncate(error), scopeId, leaseOwner) == 1;
	}

	@Override
	public int expire(String leaseOwner, Collection<UUID> scopeIds) {
		requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.expire);
			statement.setArray(1, connection.createArrayOf("uuid", scopeIds.toArray()));
			statement.setString(2, leaseOwner);
			return statement;
		});
	}

	/**
	 * Cancels a scheduled scope in the current Spring transaction; see {@link OutboxWriter#cancel(UUID)}.
	 */
	@Override
	public boolean cancel(UUID scopeId) {
		return this.transactional.execute((Connection connection) -> cancel(connection, scopeId));
	}

	/**
	 * Cancels a scheduled scope on the given connection, for callers that hold the transaction's
	 * connection themselves; see {@link OutboxWriter#cancel(UUID)}.
	 * @param connection the connection of the transaction to cancel in
	 * @param scopeId the scope
	 * @return whether it was cancelled
	 * @throws SQLException when the database refuses the statement
	 * @since 0.3
	 */
	public boolean cancel(Connection connection, UUID scopeId) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.sql.cancel)) {
			statement.setObject(1, Objects.requireNonNull(scopeId, "scopeId must not be null"));
			return statement.executeUpdate() == 1;
		}
	}

	@Override
	public int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		requireOwner(leaseOwner);
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.release);
			statement.setLong(1, Math.max(0, delay.toMillis()));
			statement.setArray(2, connection.createArrayOf("uuid", scopeIds.toArray()));
			statement.setString(3, leaseOwner);
			return statement;
		});
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		if (scopeIds.isEmpty()) {
			return 0;
		}
		return notifyIfAny(this.autonomous.update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.sql.redriveIds);
			statement.setArray(1, connection.createArrayOf("uuid", scopeIds.toArray()));
			return statement;
		}));
	}

	@Override
	public int redriveDestination(String destination) {
		return notifyIfAny(this.autonomous.update(this.sql.redriveDestination, destination));
	}

	@Override
	public int redriveAll() {
		return notifyIfAny(this.autonomous.update(this.sql.redriveAll));
	}

	@Override
	public OutboxStats stats() {
		return Objects.requireNonNull(this.autonomous.queryForObject(this.sql.stats, (row, number) -> new OutboxStats(
				row.getLong(1), row.getLong(2), row.getLong(3), row.getLong(4), nullableInstant(row, 5),
				(row.getObject(6) != null) ? Duration.ofMillis(row.getLong(6)) : null)));
	}

	private int notifyIfAny(int redriven) {
		if (redriven > 0) {
			this.autonomous.query(this.sql.notify, (ResultSet row) -> {
			}, this.tables.notifyChannel());
		}
		return redriven;
	}

	private static OutboxMessage claimedMessage(UUID messageId, ResultSet row) throws SQLException {
		String headers = row.getString(OutboxSql.CLAIM_HEADERS);
		return new OutboxMessage(messageId, row.getString(OutboxSql.CLAIM_DESTINATION),
				row.getString(OutboxSql.CLAIM_ROUTING_KEY), row.getString(OutboxSql.CLAIM_MESSAGE_TYPE),
				row.getString(OutboxSql.CLAIM_CONTENT_TYPE), (headers != null) ? HeaderCodec.read(headers) : Map.of(),
				row.getBytes(OutboxSql.CLAIM_BODY), row.getString(OutboxSql.CLAIM_CORRELATION_ID),
				row.getString(OutboxSql.CLAIM_CONVERSATION_ID), row.getString(OutboxSql.CLAIM_SOURCE_HOST),
				micros(row.getLong(OutboxSql.CLAIM_CREATED)), nullableMicros(row, OutboxSql.CLAIM_NOT_BEFORE),
				nullableMicros(row, OutboxSql.CLAIM_EXPIRES));
	}

	private static @Nullable Instant nullableMicros(ResultSet row, int column) throws SQLException {
		long micros = row.getLong(column);
		return row.wasNull() ? null : micros(micros);
	}

	private static Instant micros(long epochMicros) {
		return Instant.ofEpochSecond(Math.floorDiv(epochMicros, 1_000_000L), Math.floorMod(epochMicros, 1_000_000L) * 1_000L);
	}

	private static @Nullable Instant nullableInstant(ResultSet row, int column) throws SQLException {
		OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
		return value != null ? value.toInstant() : null;
	}

	private static <T> Array array(Connection connection, String type, List<OutboxMessage> messages,
			Function<OutboxMessage, @Nullable T> column) throws SQLException {
		Object[] values = new Object[messages.size()];
		for (int i = 0; i < values.length; i++) {
			values[i] = column.apply(messages.get(i));
		}
		return connection.createArrayOf(type, values);
	}

	private static void requireOwner(String leaseOwner) {
		if (leaseOwner == null || leaseOwner.isBlank()) {
			throw new IllegalArgumentException("leaseOwner must not be blank");
		}
	}

	private static String truncate(String error) {
		return PostgresText.column(error, MAX_ERROR_LENGTH);
	}

	private static final class ScopeRows {

		private final UUID id;

		private final Instant createdAt;

		private final int attempts;

		private final String leaseOwner;

		private final Instant leaseUntil;

		private final List<OutboxMessage> messages = new ArrayList<>();

		ScopeRows(UUID id, Instant createdAt, int attempts, String leaseOwner, Instant leaseUntil) {
			this.id = id;
			this.createdAt = createdAt;
			this.attempts = attempts;
			this.leaseOwner = leaseOwner;
			this.leaseUntil = leaseUntil;
		}

		ClaimedScope toClaimedScope() {
			return new ClaimedScope(this.id, this.createdAt, this.attempts, this.leaseOwner, this.leaseUntil, this.messages);
		}

	}

}
