package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;

/**
 * Claims due scopes for a relay: leases them, counts an attempt, and reads their messages in one
 * statement ({@link OutboxSql#claim}), either committed at once or with its commit handed to the
 * caller's executor.
 *
 * @since 0.1
 */
final class ScopeClaimer {

	private static final Log logger = LogFactory.getLog(ScopeClaimer.class);

	private static final String READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

	/**
	 * Set in each claim's transaction (a session setting would outlive it on a pooled connection).
	 * The claim's plan for any parameters, which the tests hold to its indexes: PostgreSQL would
	 * plan the statement for its parameters at every claim (its estimate of the generic plan is
	 * higher), and planning it costs several times what running it does. Its commit need not wait
	 * for the write-ahead log's flush: a claim lost in a crash is no claim, its scopes are due again
	 * and published again (see OutboxStore#claim), so the flush is one less that the business
	 * transactions' commits, a hot key's writers above all, share the disk with.
	 */
	private static final String CLAIM_SETTINGS = "SET LOCAL plan_cache_mode = force_generic_plan; "
			+ "SET LOCAL synchronous_commit = off";

	private final StoreStatements statements;

	/**
	 * Whether the database's {@code default_transaction_isolation}, for this store's role, is
	 * READ COMMITTED; read at the first claim (a DBA's change is seen after a restart).
	 */
	private volatile @Nullable Boolean readCommittedByDefault;

	ScopeClaimer(StoreStatements statements) {
		this.statements = statements;
	}

	List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return claim(this.statements.autonomous(), leaseOwner, lease, limit, KeysInFlight.NONE);
	}

	/**
	 * Runs the claim in a transaction of its own and hands its commit to {@code commitOn}: the
	 * statement's row locks keep the scopes from other claimers until the commit, and a rollback
	 * (the process died, the commit failed) makes it no claim at all. A claim that found nothing,
	 * or whose commit {@code commitOn} rejects, commits here, and fails if that commit fails.
	 */
	List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn, KeysInFlight inFlight) {
		Connection connection = DataSourceUtils.getConnection(this.statements.autonomous().getDataSource());
		boolean handedOver = false;
		try {
			// The claim's consistency rests on its row locks (SKIP LOCKED) and the lease, not on the
			// isolation level. Under a database default of REPEATABLE READ or SERIALIZABLE its
			// handed-over commit, run after the relay published, fails with 40001 when a business
			// transaction read what it claimed and wrote what it read, and every scope it published
			// would go out again. The default is read once, so that the usual READ COMMITTED costs
			// no round trip per claim.
			boolean setIsolation = !readCommittedByDefault(connection);
			connection.setAutoCommit(false);
			try (Statement settings = connection.createStatement()) {
				settings.execute(setIsolation ? READ_COMMITTED + "; " + CLAIM_SETTINGS : CLAIM_SETTINGS);
			}
			List<ClaimedScope> scopes = claim(new JdbcTemplate(new SingleConnectionDataSource(connection, true)),
					leaseOwner, lease, limit, inFlight);
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
			String claim = this.statements.sql().claim;
			DataAccessException translated = this.statements.autonomous().getExceptionTranslator()
				.translate("claim", claim, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException("claim", claim, ex);
		}
		finally {
			if (!handedOver) {
				commitAndClose(connection, 0);
			}
		}
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
			DataSourceUtils.releaseConnection(connection, this.statements.autonomous().getDataSource());
		}
	}

	private List<ClaimedScope> claim(JdbcTemplate jdbc, String leaseOwner, Duration lease, int limit,
			KeysInFlight inFlight) {
		StoreStatements.requireOwner(leaseOwner);
		StoreStatements.requirePositive(lease);
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, was " + limit);
		}
		Map<UUID, ClaimedRows> scopes = new LinkedHashMap<>();
		Map<UUID, String> unreadable = new LinkedHashMap<>();
		String[] orderingKeys = keys(inFlight, KeysInFlight.Key::orderingKey);
		jdbc.query(this.statements.sql().claim, (ResultSet row) -> {
			UUID id = row.getObject(OutboxSql.CLAIM_SCOPE_ID, UUID.class);
			ClaimedRows scope = scopes.get(id);
			if (scope == null) {
				scope = ClaimedRows.first(id, row, leaseOwner);
				scopes.put(id, scope);
			}
			UUID messageId = row.getObject(OutboxSql.CLAIM_MESSAGE_ID, UUID.class);
			if (messageId != null) {
				try {
					scope.add(messageId, row);
				}
				catch (RuntimeException ex) {
					// A row Waybill did not write (edited by hand, an older tool): failing the whole
					// claim would fail every claim after it too, the row staying first in line.
					unreadable.putIfAbsent(id, "message " + messageId + " in "
							+ this.statements.tables().qualifiedOutboxMessage() + " cannot be read: " + ex.getMessage());
				}
			}
		}, orderingKeys, limit, limit, orderingKeys, keys(inFlight, KeysInFlight.Key::destination),
				keys(inFlight, KeysInFlight.Key::routingKey),
				inFlight.keys().stream().map(KeysInFlight.Key::fromScope).toArray(UUID[]::new), continuable(inFlight),
				inFlight.leaseOwners().toArray(String[]::new), limit, leaseOwner, lease.toMillis(), lease.toMillis());
		// Permanent: dead at once with the reason, in the claim's transaction, as the relay does for
		// a message the broker can never accept; the other scopes of the claim are published.
		unreadable.forEach((id, reason) -> {
			String error = "Waybill cannot read this scope's rows (changed outside Waybill?): " + reason;
			jdbc.update(this.statements.sql().deadLetter, StoreStatements.truncate(error), id, leaseOwner);
			scopes.remove(id);
			logger.error("Waybill outbox scope " + id + " is dead: " + error);
		});
		return scopes.values().stream().map(ClaimedRows::toClaimedScope).toList();
	}

	private static String[] keys(KeysInFlight inFlight, Function<KeysInFlight.Key, String> part) {
		return inFlight.keys().stream().map(part).toArray(String[]::new);
	}

	private static boolean[] continuable(KeysInFlight inFlight) {
		boolean[] continuable = new boolean[inFlight.keys().size()];
		for (int i = 0; i < continuable.length; i++) {
			continuable[i] = inFlight.keys().get(i).continuable();
		}
		return continuable;
	}

}
