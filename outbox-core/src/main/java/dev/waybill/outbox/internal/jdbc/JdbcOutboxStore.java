package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The PostgreSQL outbox over JDBC. {@link #write(OutboxScope)} runs on the connection of the
 * current Spring transaction; the relay operations run on connections of their own, each one
 * statement that commits by itself. Writing ({@link ScopeWriter}), claiming
 * ({@link ScopeClaimer}), settling ({@link ScopeSettlement}), ordering ({@link OrderingHeads})
 * and an operator's statements ({@link OperatorStatements}) each have a class of their own.
 *
 * @since 0.1
 */
public final class JdbcOutboxStore implements ConnectionOutboxWriter, OutboxStore {

	private final DataSource dataSource;

	private final OutboxTables tables;

	private final OutboxSql sql;

	private final JdbcTemplate transactional;

	private final ScopeWriter writer;

	private final ScopeClaimer claimer;

	private final ScopeSettlement settlement;

	private final OrderingHeads heads;

	private final OperatorStatements operator;

	private volatile @Nullable ScopeRouting routing;

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
		StoreStatements statements = new StoreStatements(tables, this.sql,
				new JdbcTemplate(new AutoCommitDataSource(dataSource)));
		this.writer = new ScopeWriter(this.sql);
		this.claimer = new ScopeClaimer(statements);
		this.heads = new OrderingHeads(statements);
		this.settlement = new ScopeSettlement(statements, this.heads);
		this.operator = new OperatorStatements(statements);
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
	 * @since 0.1
	 */
	public void setDirectDispatcher(@Nullable DirectDispatcher dispatcher) {
		this.writer.setDirectDispatcher(dispatcher);
	}

	/**
	 * Sends what this store is asked to write to the store of each transaction or connection, when
	 * that is another one; set on the default store when there are several.
	 * @param routing the routing, or {@literal null} to write everything here
	 * @since 0.1
	 */
	public void setRouting(@Nullable ScopeRouting routing) {
		this.routing = routing;
	}

	@Override
	public void checkTransaction() {
		ScopeRouting routing = this.routing;
		if (routing != null && routing.checkElsewhere()) {
			return;
		}
		if (!TransactionSynchronizationManager.hasResource(this.dataSource)) {
			throw new IllegalStateException("The current transaction does not manage the DataSource Waybill writes "
					+ "the outbox to, so its messages could not commit atomically with it. Run the publishing method "
					+ "under the transaction manager of that DataSource (check @Outbox(transactionManager = ...)).");
		}
	}

	@Override
	public void write(OutboxScope scope) {
		ScopeRouting routing = this.routing;
		if (routing != null && routing.writeElsewhere(scope)) {
			return;
		}
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

	@Override
	public int write(Connection connection, OutboxScope scope) throws SQLException {
		ScopeRouting routing = this.routing;
		if (routing != null) {
			int written = routing.writeElsewhere(connection, scope);
			if (written >= 0) {
				return written;
			}
		}
		return this.writer.write(connection, scope);
	}

	/** Cancels a scheduled scope in the current Spring transaction. */
	@Override
	public boolean cancel(UUID scopeId) {
		ScopeRouting routing = this.routing;
		Boolean cancelled = (routing != null) ? routing.cancelElsewhere(scopeId) : null;
		if (cancelled != null) {
			return cancelled;
		}
		return this.transactional.execute((Connection connection) -> cancelHere(connection, scopeId));
	}

	@Override
	public boolean cancel(Connection connection, UUID scopeId) throws SQLException {
		ScopeRouting routing = this.routing;
		Boolean cancelled = (routing != null) ? routing.cancelElsewhere(connection, scopeId) : null;
		return (cancelled != null) ? cancelled : cancelHere(connection, scopeId);
	}

	private boolean cancelHere(Connection connection, UUID scopeId) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.sql.cancel)) {
			statement.setObject(1, Objects.requireNonNull(scopeId, "scopeId must not be null"));
			return statement.executeUpdate() == 1;
		}
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return this.claimer.claim(leaseOwner, lease, limit);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return this.claimer.claim(leaseOwner, lease, limit, commitOn, KeysInFlight.NONE);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn,
			KeysInFlight inFlight) {
		return this.claimer.claim(leaseOwner, lease, limit, commitOn, inFlight);
	}

	@Override
	public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		return this.settlement.markPublished(leaseOwner, scopeIds);
	}

	@Override
	public int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		return this.settlement.renew(leaseOwner, scopeIds, lease);
	}

	@Override
	public boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		return this.settlement.retryLater(scopeId, leaseOwner, error, retryDelay);
	}

	@Override
	public boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		return this.settlement.deadLetter(scopeId, leaseOwner, error);
	}

	@Override
	public int expire(String leaseOwner, Collection<UUID> scopeIds) {
		return this.settlement.expire(leaseOwner, scopeIds);
	}

	@Override
	public int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		return this.settlement.release(leaseOwner, scopeIds, delay);
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		return this.heads.skip(scopeIds);
	}

	@Override
	public int promoteHeldHeads() {
		return this.heads.promoteHeldHeads();
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return this.operator.redrive(scopeIds);
	}

	@Override
	public int redriveDestination(String destination) {
		return this.operator.redriveDestination(destination);
	}

	@Override
	public int redriveAll() {
		return this.operator.redriveAll();
	}

	@Override
	public OutboxStats stats() {
		return this.operator.stats();
	}

}
