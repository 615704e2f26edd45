package dev.waybill.inbox.internal;

import org.springframework.dao.DataAccessResourceFailureException;

/** The database is unavailable: nothing of the open batch is recorded. */
final class BatchUnavailable extends RuntimeException {

	final RuntimeException failure;

	BatchUnavailable(Throwable failure) {
		super(failure);
		this.failure = (failure instanceof RuntimeException runtime) ? runtime
				: new DataAccessResourceFailureException("The database is unavailable", failure);
	}

}
