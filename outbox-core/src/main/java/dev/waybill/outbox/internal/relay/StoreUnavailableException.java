package dev.waybill.outbox.internal.relay;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A write about a claimed scope that was not tried: its store waits for its database to answer
 * ({@link StoreRecovery}), whose outage the store's claim log tells. Those who keep retrying the
 * write (the settler, the lease renewer) need not tell it again.
 */
final class StoreUnavailableException extends DataAccessResourceFailureException {

	private static final long serialVersionUID = 1L;

	StoreUnavailableException(String store) {
		super("Store '" + store + "' is unavailable; its writes wait until its database answers");
	}

}
