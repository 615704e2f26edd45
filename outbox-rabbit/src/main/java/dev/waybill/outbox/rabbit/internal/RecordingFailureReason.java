package dev.waybill.outbox.rabbit.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Why the inbox could not record a delivery, as an operator needs it in the receive endpoint's
 * log: a failed rollback's own message ("JDBC rollback failed") says less than the error that made
 * it roll back, and a wrapper's less than its cause.
 *
 * @since 0.1
 */
final class RecordingFailureReason {

	private RecordingFailureReason() {
	}

	static String of(@Nullable Throwable failure) {
		if (failure == null) {
			return "?";
		}
		Throwable shown = (failure instanceof TransactionSystemException end && end.getApplicationException() != null)
				? end.getApplicationException() : failure;
		// Spring's data access wrappers quote the whole statement ("PreparedStatementCallback; SQL
		// [INSERT ...]"): their cause says what went wrong.
		while (shown instanceof DataAccessException && shown.getCause() != null) {
			shown = shown.getCause();
		}
		String text = String.valueOf(shown.getMessage());
		Throwable root = NestedExceptionUtils.getRootCause(shown);
		return (root != null && root.getMessage() != null && !text.contains(root.getMessage()))
				? text + " (" + root.getMessage() + ")" : text;
	}

}
