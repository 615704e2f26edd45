package dev.waybill.outbox.spi;

import java.util.UUID;

/**
 * Writes outbox scopes inside the caller's transaction. The JDBC store writes on the connection
 * of the current Spring transaction; other persistence technologies (Hibernate) provide their own.
 *
 * @since 0.1
 */
public interface OutboxWriter {

	/**
	 * Checks that the current transaction is one this writer can write in, so a publish fails at
	 * once rather than at commit. Called for every publish, so it must be cheap.
	 * @throws IllegalStateException naming the problem and the fix when it cannot
	 */
	default void checkTransaction() {
	}

	/**
	 * Writes a scope and its messages, in order, in the current transaction. Called just before
	 * commit; the rows become visible (and the relay is notified) when the transaction commits,
	 * and a rollback removes them.
	 * @param scope the scope to write, must not be {@literal null}
	 */
	void write(OutboxScope scope);

	/**
	 * Cancels a committed, scheduled scope in the current transaction: marks it {@code cancelled}
	 * if it is still pending and no relay holds a lease on it.
	 * @param scopeId the scope
	 * @return whether it was cancelled
	 * @throws UnsupportedOperationException when this writer cannot (the default)
	 * @since 0.1
	 */
	default boolean cancel(UUID scopeId) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot cancel scheduled messages");
	}

}
