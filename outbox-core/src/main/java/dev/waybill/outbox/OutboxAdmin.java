package dev.waybill.outbox;

import java.util.Collection;
import java.util.UUID;

/**
 * Operations on the outbox for operators: inspect the backlog and redrive dead scopes. A
 * redriven scope is pending again with its attempts reset, and the relays are woken at once.
 *
 * @since 0.1
 */
public interface OutboxAdmin {

	/**
	 * Redrives the given dead scopes; ids of scopes that are not dead are ignored.
	 * @param scopeIds the scope ids, must not be {@literal null}
	 * @return how many were redriven
	 */
	int redrive(Collection<UUID> scopeIds);

	/**
	 * Redrives every dead scope that has a message for {@code destination}.
	 * @param destination the destination (exchange) name
	 * @return how many were redriven
	 */
	int redriveDestination(String destination);

	/**
	 * Redrives every dead scope.
	 * @return how many were redriven
	 */
	int redriveAll();

	/**
	 * Skips dead scopes in the order of their ordering key: a dead scope with a key holds back
	 * every later scope of that key (see the README's "Ordering"); skipping it lets them go. The
	 * skipped scope stays dead, its messages and last error kept (prefixed with the key it had),
	 * and {@link #redrive(Collection) redriving} it later publishes it without a place in the
	 * key's order. To keep the order instead, {@link #redrive(Collection) redrive} it: it is
	 * still its key's head, so it goes first. Ids of scopes that are not dead or have no key are
	 * ignored.
	 * @param scopeIds the dead scopes, must not be {@literal null}
	 * @return how many were skipped
	 * @since 0.3
	 */
	default int skip(Collection<UUID> scopeIds) {
		throw new UnsupportedOperationException(getClass().getName() + " does not support ordering keys");
	}

	/**
	 * Reads the backlog now.
	 * @return pending, due and dead scopes, pending messages and the oldest pending scope
	 */
	OutboxStats stats();

}
