package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.TransactionSystemException;

import dev.waybill.kernel.DatabaseFailures.ConnectionState;

/**
 * {@link DatabaseFailures}: what counts as the database being unavailable.
 */
class DatabaseFailuresTests {

	@Test
	void aRollbackThatFailedOnAClosedConnectionWithoutSqlStateIsAnOutage() {
		SQLException closed = new SQLException("Connection is closed"); // HikariCP, after evicting it
		assertThat(closed.getSQLState()).isNull();
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed", closed);

		assertThat(DatabaseFailures.unavailable(rollback, ConnectionState.UNKNOWN)).isTrue();
		assertThat(DatabaseFailures.unavailable(new TransactionSystemException("JDBC rollback failed",
				new PSQLException("This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST)),
				ConnectionState.UNKNOWN)).isTrue();
	}

	@Test
	void aFailedRollbackIsJudgedAlsoByTheApplicationExceptionItCarries() {
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
				new SQLException("rollback refused", "XX000"));
		rollback.initApplicationException(new IllegalStateException("could not bill",
				new SQLException("FATAL: terminating connection due to administrator command", "57P01")));

		assertThat(DatabaseFailures.unavailable(rollback, ConnectionState.UNKNOWN)).isTrue();
	}

	@Test
	void connectionStatesAnywhereInTheChainAreAnOutage() {
		for (String state : new String[] { "08006", "08003", "57P01", "57P02", "57P03", "53300" }) {
			Exception failure = new IllegalStateException("handler", new UncategorizedSQLException("insert", "INSERT ...",
					new SQLException("wrapper", null, new SQLException("lost", state))));
			assertThat(DatabaseFailures.unavailable(failure, ConnectionState.UNKNOWN)).as(state).isTrue();
		}
		SQLException batch = new SQLException("batch failed", "XX000");
		batch.setNextException(new SQLException("I/O error", "08006"));
		assertThat(DatabaseFailures.unavailable(batch, ConnectionState.UNKNOWN)).as("next exception").isTrue();
	}

	@Test
	void aConnectionThatNoLongerAnswersMakesAnyFailureAnOutage() {
		IllegalStateException hidden = new IllegalStateException("the payment could not be saved");

		assertThat(DatabaseFailures.unavailable(hidden, ConnectionState.INVALID)).isTrue();
		assertThat(DatabaseFailures.unavailable(hidden, ConnectionState.VALID)).isFalse();
		assertThat(DatabaseFailures.unavailable(hidden, ConnectionState.UNKNOWN)).isFalse();
	}

	@Test
	void whatTheDatabaseRefusesOnAWorkingConnectionIsTheMessagesFailure() {
		assertThat(DatabaseFailures.unavailable(new DataIntegrityViolationException("duplicate",
				new SQLException("duplicate key", "23505")), ConnectionState.VALID)).isFalse();
		assertThat(DatabaseFailures.unavailable(new SQLException("canceling statement due to statement timeout", "57014"),
				ConnectionState.UNKNOWN)).as("a cancelled statement").isFalse();
		assertThat(DatabaseFailures.unavailable(new SQLException("a handler's own, without state"),
				ConnectionState.UNKNOWN)).as("no SQLState outside a commit or rollback").isFalse();
		assertThat(DatabaseFailures.unavailable(new TransactionSystemException("Could not commit JDBC transaction",
				new SQLException("deferred constraint", "23503")), ConnectionState.VALID)).isFalse();
		assertThat(DatabaseFailures.unavailable(null, ConnectionState.UNKNOWN)).isFalse();
	}

	@Test
	void aWorkersPassThatMeetsADatabaseTakingNoWritesFailedForTheDatabase() {
		SQLException readOnly = new SQLException("cannot execute UPDATE in a read-only transaction", "25006");

		assertThat(DatabaseFailures.unavailableOrReadOnly(new UncategorizedSQLException("claim", "UPDATE ...", readOnly)))
			.isTrue();
		assertThat(DatabaseFailures.unavailableOrReadOnly(new SQLException("lost", "08006"))).isTrue();
		assertThat(DatabaseFailures.unavailableOrReadOnly(new SQLException("duplicate key", "23505"))).isFalse();
		assertThat(DatabaseFailures.unavailableOrReadOnly(new SQLException("no such table", "42P01")))
			.as("an operator's fix, not an outage").isFalse();
		assertThat(DatabaseFailures.unavailableOrReadOnly(null)).isFalse();
	}

	@Test
	void aReadOnlyTransactionIsAnOutageForWaybillsOwnStatementsOnly() {
		SQLException readOnly = new SQLException("cannot execute INSERT in a read-only transaction", "25006");
		Exception translated = new UncategorizedSQLException("insert", "INSERT ...", readOnly);
		SQLException batch = new SQLException("batch failed", "XX000");
		batch.setNextException(readOnly);

		assertThat(DatabaseFailures.unavailableToRecord(translated, ConnectionState.VALID)).isTrue();
		assertThat(DatabaseFailures.unavailableToRecord(batch, ConnectionState.VALID)).as("next exception").isTrue();
		assertThat(DatabaseFailures.unavailable(translated, ConnectionState.VALID)).as("a handler's").isFalse();
		assertThat(DatabaseFailures.unavailableToRecord(new SQLException("duplicate key", "23505"), ConnectionState.VALID))
			.isFalse();
		assertThat(DatabaseFailures.unavailableToRecord(new SQLException("lost", "08006"), ConnectionState.VALID))
			.as("and every outage").isTrue();
	}

	@Test
	void aSchemaThatIsNotReadyForWaybillsOwnStatementsIsAnOutageNotTheMessagesFailure() {
		// a newcomer's trial: the tables never applied, healthy messages went to the error queue
		for (String state : new String[] { "42P01", "3F000", "42703", "42501" }) {
			Exception translated = new BadSqlGrammarException("insert", "INSERT INTO inbox_state ...",
					new SQLException("ERROR: relation \"waybill.inbox_state\" does not exist", state));
			assertThat(DatabaseFailures.unavailableToRecord(translated, ConnectionState.VALID)).as(state).isTrue();
			assertThat(DatabaseFailures.unavailable(translated, ConnectionState.VALID)).as("a handler's " + state)
				.isFalse();
		}
	}

	@Test
	void contentionOnWaybillsOwnStatementsIsAnOutageNotTheMessagesFailure() {
		// a soak held LOCK TABLE inbox_state for 20 s under statement_timeout = 2s: the inbox insert
		// timed out three times and healthy messages went to the error queue with no inbox row
		for (String state : new String[] { "57014", "55P03", "40001", "40P01" }) {
			Exception translated = new QueryTimeoutException("PreparedStatementCallback; SQL [INSERT INTO inbox_state ...]",
					new SQLException("ERROR: canceling statement due to statement timeout", state));
			assertThat(DatabaseFailures.unavailableToRecord(translated, ConnectionState.VALID)).as(state).isTrue();
			assertThat(DatabaseFailures.unavailable(translated, ConnectionState.VALID)).as("a handler's " + state)
				.isFalse();
		}
		assertThat(DatabaseFailures.unavailableToRecord(new SQLException("value too long", "22001"), ConnectionState.VALID))
			.as("what the statement carried").isFalse();
	}

	@Test
	void springsResourceFailureIsAnOutageOnlyWhenNoPreciseStateSaysOtherwise() {
		// Spring translates SQLState class 54 (program limit exceeded) as a resource failure
		assertThat(DatabaseFailures.unavailable(new DataAccessResourceFailureException("insert",
				new SQLException("index row requires 10016 bytes, maximum size is 8191", "54000")), ConnectionState.VALID))
			.isFalse();
		assertThat(DatabaseFailures.unavailable(new DataAccessResourceFailureException("insert",
				new SQLException("An I/O error occurred while sending to the backend.", "08006")), ConnectionState.UNKNOWN))
			.isTrue();
		assertThat(DatabaseFailures.unavailable(new DataAccessResourceFailureException("no state"), ConnectionState.UNKNOWN))
			.isTrue();
		assertThat(DatabaseFailures.unavailable(new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection",
				new SQLException("password authentication failed", "28P01")), ConnectionState.UNKNOWN))
			.as("no connection to be had").isTrue();
		assertThat(DatabaseFailures.unavailable(new SQLException("could not write to file", "58030"), ConnectionState.VALID))
			.as("a system error").isTrue();
	}

	@Test
	void aStatementAPoolerLostIsNotTheMessagesFailureOfWaybillsOwnStatements() {
		// PgBouncer in transaction mode, with the driver preparing statements: seen writing a scope
		for (String state : new String[] { "26000", "42P05" }) {
			Exception failure = new UncategorizedSQLException("Writing outbox scope", "INSERT ...",
					new SQLException("ERROR: prepared statement \"S_3\" does not exist", state));
			assertThat(DatabaseFailures.unavailableToRecord(failure, ConnectionState.VALID)).as(state).isTrue();
		}
	}

	@Test
	void anIdleInTransactionTimeoutIsTheWorksFailureThoughItsConnectionIsGone() {
		// Before, the lost connection made it an outage: the batch was retried in place for ever.
		Exception failure = new TransactionSystemException("Could not commit JDBC transaction", new SQLException(
				"FATAL: terminating connection due to idle-in-transaction timeout", "25P03"));

		assertThat(DatabaseFailures.unavailable(failure, ConnectionState.INVALID)).isFalse();
		assertThat(DatabaseFailures.unavailableToRecord(failure, ConnectionState.INVALID)).isFalse();
	}

}
