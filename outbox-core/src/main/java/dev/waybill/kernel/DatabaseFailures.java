package dev.waybill.kernel;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * The one place that tells whether a failure of work in a transaction (an inbox delivery, a
 * schedule's tick) means the database was unavailable (DESIGN rule 10: no fault of the message,
 * retried without costing an attempt) or is a failure of the work itself (its handler or builder
 * failed, or what it wrote was refused). Decided by the whole cause chain,
 * including the application exception a failed rollback carries, and by whether the delivery's
 * transaction connection still works, never by an SQLState alone:
 * <ul>
 * <li>the transaction's connection no longer answers ({@link ConnectionState#INVALID}): whatever the
 * exception says (the handler may have caught the driver's and thrown its own), the delivery could
 * not be decided on it;</li>
 * <li>a connection failure anywhere in the chain: no transaction or connection to be had, a
 * connection exception ({@link SQLTransientConnectionException},
 * {@link SQLNonTransientConnectionException}, {@link SQLRecoverableException}, Spring's
 * resource failures unless a more precise SQLState below them says otherwise), SQLState class 08
 * (connection exception), 53 (insufficient resources), 58 (system error), 57P (administrator
 * shutdown or backend termination, crash, database not accepting connections);</li>
 * <li>a failed commit or rollback ({@link TransactionSystemException}) caused by an
 * {@link SQLException} without SQLState: the driver or pool could not talk to the server at all,
 * e.g. HikariCP's {@code Connection is closed} after it evicted a broken connection.</li>
 * </ul>
 * Except {@code idle_in_transaction_session_timeout} (25P03): the connection is gone, but because
 * the work held its transaction idle; that is the work's failure.
 */
public final class DatabaseFailures {

	/** Cause chains are short; this guards against a pathological one. */
	private static final int MAX_DEPTH = 64;

	/** The transaction is read-only: here, the database took no writes. */
	private static final String READ_ONLY_SQL_TRANSACTION = "25006";

	/**
	 * The database could not run one of Waybill's own statements for contention, not for what the
	 * statement carried: {@code query_canceled} (57014: {@code statement_timeout}, or an operator's
	 * {@code pg_cancel_backend}, e.g. while a lock on the table is held), {@code lock_not_available}
	 * (55P03: {@code lock_timeout}), {@code serialization_failure} (40001) and
	 * {@code deadlock_detected} (40P01).
	 */
	private static final Set<String> CONTENTION = Set.of("57014", "55P03", "40001", "40P01");

	/**
	 * The database does not have Waybill's tables as Waybill needs them, whatever the statement
	 * carried: {@code undefined_table} (42P01: the schema was never applied, e.g. Liquibase left off
	 * the class path with {@code waybill.liquibase.enabled=false}), {@code invalid_schema_name}
	 * (3F000), {@code undefined_column} (42703: an older schema than the code) and
	 * {@code insufficient_privilege} (42501: the role may not use them). An operator's fix, not the
	 * message's fault: a newcomer's trial saw healthy messages sent to the error queue while the
	 * tables were missing.
	 */
	private static final Set<String> SCHEMA_NOT_READY = Set.of("42P01", "3F000", "42703", "42501");

	/**
	 * A server-side prepared statement the connection does not have, or has already:
	 * {@code invalid_sql_statement_name} (26000) and {@code duplicate_prepared_statement} (42P05).
	 * Seen behind a pooler in transaction mode (PgBouncer before 1.21), which hands each transaction
	 * another server connection than the driver prepared its statements on: the pooler's or the
	 * driver's settings are to blame ({@code prepareThreshold=0}), not the message, which must not go to
	 * the error queue for it.
	 */
	private static final Set<String> STATEMENT_NOT_PREPARED = Set.of("26000", "42P05");

	/**
	 * {@code idle_in_transaction_session_timeout} (25P03): PostgreSQL ended the connection because
	 * the transaction stayed idle too long, which is the work's doing (a handler that waits, e.g. on
	 * an HTTP call, inside its transaction), not an outage: it costs an attempt, so it ends in the
	 * error queue rather than being retried in place for ever.
	 */
	private static final String IDLE_IN_TRANSACTION_TIMEOUT = "25P03";

	private DatabaseFailures() {
	}

	/**
	 * Whether the delivery's transaction connection still works.
	 */
	public enum ConnectionState {

		/** It answered a validity check. */
		VALID,

		/** It did not answer a validity check: closed, broken or evicted. */
		INVALID,

		/** Not checked, or there was none. */
		UNKNOWN

	}

	/**
	 * Tells whether {@code failure} means the database was unavailable.
	 * @param failure what was thrown
	 * @param connection the state of the transaction's connection after the failure
	 * @return {@literal true} to retry without counting an attempt
	 */
	public static boolean unavailable(@Nullable Throwable failure, ConnectionState connection) {
		if (failure != null && anySqlState(failure, IDLE_IN_TRANSACTION_TIMEOUT::equals)) {
			return false; // its connection is gone, but the work held the transaction idle
		}
		if (connection == ConnectionState.INVALID) {
			return true;
		}
		return failure != null && connectionFailure(failure, Collections.newSetFromMap(new IdentityHashMap<>()), false);
	}

	/**
	 * Tells whether a failed pass of one of Waybill's background workers (the relay's claims, a
	 * retention run, a replay batch) means the database was unavailable: as {@link #unavailable},
	 * or it took no writes ({@code read_only_sql_transaction}, 25006: a standby, or a primary in
	 * {@code default_transaction_read_only}), which its own read-write statements meet only when
	 * the database refuses all writes.
	 * @param failure what the pass threw
	 * @return {@literal true} when the pass failed for the database, not for what it worked on
	 */
	public static boolean unavailableOrReadOnly(@Nullable Throwable failure) {
		return failure != null && (unavailable(failure, ConnectionState.UNKNOWN) || readOnly(failure));
	}

	/**
	 * Tells whether a failure of Waybill's own statements (the inbox row, the outbox rows), run in a
	 * transaction Waybill began read-write, means the database was unavailable: as
	 * {@link #unavailable}, or the database refused to write at all (SQLState 25006,
	 * {@code read_only_sql_transaction}). A read-write transaction is made read-only only by the
	 * database: a hot standby (the connection still points at a primary that was demoted), or
	 * {@code default_transaction_read_only} set by an operator, or by a managed service whose storage
	 * is nearly full. Waiting is the cure, so no message is charged for it; so also for contention
	 * on Waybill's statements (a lock, a timeout, a deadlock) and for tables that are missing, of an
	 * older schema or not granted to the role. A handler's own statements
	 * are not judged by this: a handler that writes in a read-only transaction of its own fails as
	 * any handler does, and recording that failure then tells whether the database was read-only.
	 * @param failure what Waybill's statement threw
	 * @param connection the state of the transaction's connection after the failure
	 * @return {@literal true} to retry without counting an attempt
	 */
	public static boolean unavailableToRecord(@Nullable Throwable failure, ConnectionState connection) {
		return unavailable(failure, connection) || (failure != null && (readOnly(failure) || contention(failure)
				|| schemaNotReady(failure) || anySqlState(failure, STATEMENT_NOT_PREPARED::contains)));
	}

	private static boolean schemaNotReady(Throwable failure) {
		return anySqlState(failure, SCHEMA_NOT_READY::contains);
	}

	/**
	 * Tells whether PostgreSQL aborted the connection's transaction (a statement failed; every later
	 * one is refused and COMMIT rolls back without an error), as the driver knows it from the
	 * protocol, without a round trip.
	 * @param connection the transaction's connection
	 * @return {@literal true} when the transaction can no longer commit
	 */
	public static boolean transactionAborted(Connection connection) {
		try {
			return connection.isWrapperFor(BaseConnection.class)
					&& connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private static boolean readOnly(Throwable failure) {
		return anySqlState(failure, READ_ONLY_SQL_TRANSACTION::equals);
	}

	private static boolean contention(Throwable failure) {
		return anySqlState(failure, CONTENTION::contains);
	}

	/**
	 * Whether an SQLException in the chain (causes, next exceptions, and the application exception
	 * a failed commit or rollback carries) has a state that matches.
	 */
	private static boolean anySqlState(Throwable failure, Predicate<String> matches) {
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		Deque<Throwable> chain = new ArrayDeque<>(List.of(failure));
		while (!chain.isEmpty() && seen.size() < MAX_DEPTH) {
			Throwable cause = chain.pop();
			if (!seen.add(cause)) {
				continue;
			}
			if (cause instanceof SQLException sql) {
				if (sql.getSQLState() != null && matches.test(sql.getSQLState())) {
					return true;
				}
				if (sql.getNextException() != null) {
					chain.push(sql.getNextException());
				}
			}
			if (cause instanceof TransactionSystemException end && end.getApplicationException() != null) {
				chain.push(end.getApplicationException());
			}
			if (cause.getCause() != null) {
				chain.push(cause.getCause());
			}
		}
		return false;
	}

	private static boolean connectionFailure(Throwable failure, Set<Throwable> seen, boolean inTransactionEnd) {
		boolean transactionEnd = inTransactionEnd;
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < MAX_DEPTH && seen.add(cause); depth++) {
			if (cause instanceof CannotCreateTransactionException || cause instanceof CannotGetJdbcConnectionException
					|| cause instanceof SQLTransientConnectionException
					|| cause instanceof SQLNonTransientConnectionException || cause instanceof SQLRecoverableException) {
				return true;
			}
			if ((cause instanceof DataAccessResourceFailureException
					|| cause instanceof TransientDataAccessResourceException) && !refusedWithState(cause)) {
				return true;
			}
			if (cause instanceof TransactionSystemException end) {
				transactionEnd = true;
				// A failed rollback carries the exception that caused it apart from its cause chain.
				Throwable application = end.getApplicationException();
				if (application != null && connectionFailure(application, seen, false)) {
					return true;
				}
			}
			if (cause instanceof SQLException sql) {
				if (connectionState(sql.getSQLState()) || (transactionEnd && sql.getSQLState() == null)) {
					return true;
				}
				SQLException next = sql.getNextException();
				if (next != null && next != sql && connectionFailure(next, seen, transactionEnd)) {
					return true;
				}
			}
			cause = cause.getCause();
		}
		return false;
	}

	/**
	 * Whether the SQLStates below one of Spring's resource failures name something else than a lost
	 * connection: Spring translates by SQLState class alone, and class 54 (program limit exceeded:
	 * an index row too large, a statement too complex) is the statement's fault, not the database's,
	 * so it must cost the message an attempt rather than loop.
	 */
	private static boolean refusedWithState(Throwable resourceFailure) {
		return anySqlState(resourceFailure, (state) -> true)
				&& !anySqlState(resourceFailure, DatabaseFailures::connectionState);
	}

	/**
	 * Connection exception (08), insufficient resources (53), system error (58: the server could not
	 * read or write its files), operator intervention other than a
	 * cancelled statement (57P01 admin shutdown / backend terminated, 57P02 crash shutdown, 57P03
	 * cannot connect now).
	 */
	private static boolean connectionState(@Nullable String state) {
		return state != null && (state.startsWith("08") || state.startsWith("53") || state.startsWith("57P")
				|| state.startsWith("58"));
	}

}
