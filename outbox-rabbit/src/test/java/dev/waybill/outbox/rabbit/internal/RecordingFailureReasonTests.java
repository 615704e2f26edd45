package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.TransactionSystemException;

/**
 * What the receive endpoint says of a delivery it could not record.
 */
class RecordingFailureReasonTests {

	@Test
	void aFailedRollbackIsToldByTheErrorThatMadeItRollBack() {
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
				new SQLException("This connection has been closed.", "08003"));
		rollback.initApplicationException(new DataAccessResourceFailureException("PreparedStatementCallback; insert",
				new SQLException("An I/O error occurred while sending to the backend.", "08006")));

		assertThat(RecordingFailureReason.of(rollback)).isEqualTo("An I/O error occurred while sending to the backend.");
	}

	@Test
	void aDataAccessFailureIsToldByItsCauseNotByTheStatementSpringQuotes() {
		DataAccessResourceFailureException failure = new DataAccessResourceFailureException(
				"PreparedStatementCallback; SQL [INSERT INTO waybill.inbox_state (message_id, consumer_id) VALUES (?, ?)]; "
						+ "FATAL: terminating connection due to administrator command",
				new SQLException("FATAL: terminating connection due to administrator command", "57P01"));

		assertThat(RecordingFailureReason.of(failure))
			.isEqualTo("FATAL: terminating connection due to administrator command")
			.doesNotContain("INSERT");
	}

	@Test
	void aFailureShowsItsRootCauseWhenItsOwnMessageDoesNotSayIt() {
		assertThat(RecordingFailureReason.of(new IllegalStateException("wrapped", new SQLException("root")))).isEqualTo(
				"wrapped (root)");
		assertThat(RecordingFailureReason.of(new IllegalStateException("root already said: root",
				new SQLException("root")))).isEqualTo("root already said: root");
		assertThat(RecordingFailureReason.of(null)).isEqualTo("?");
	}

}
