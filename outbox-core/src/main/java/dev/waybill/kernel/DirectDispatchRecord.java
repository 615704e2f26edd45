package dev.waybill.kernel;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * What the current transaction wrote to the outbox for this process's relay to publish directly,
 * bound to the transaction as a resource under {@link #RESOURCE_KEY} by the writer that leases
 * scopes at write time. {@link RelayWakeUp#committed()} reads it to leave the relays asleep when
 * the transaction wrote nothing they need to claim.
 *
 * @since 0.1
 */
public interface DirectDispatchRecord {

	/** The transaction resource key the current transaction's record is bound under. */
	Object RESOURCE_KEY = DirectDispatchRecord.class;

	/**
	 * Tells whether every scope the transaction wrote was leased to this process's relay at write
	 * time; {@code false} when it wrote none that way.
	 * @return whether no relay needs waking for this transaction
	 */
	boolean everyScopeDispatchedDirectly();

	/**
	 * Tells whether every scope the current transaction wrote goes to this process's relay
	 * directly; {@code false} outside a transaction, or when no record is bound.
	 * @return whether no relay needs waking for the current transaction
	 */
	static boolean currentTransactionDispatchedDirectly() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return false;
		}
		Object record = TransactionSynchronizationManager.getResource(RESOURCE_KEY);
		return record instanceof DirectDispatchRecord bound && bound.everyScopeDispatchedDirectly();
	}

}
