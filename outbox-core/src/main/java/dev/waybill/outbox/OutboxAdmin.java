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
	 * Reads the backlog now.
	 * @return pending, due and dead scopes, pending messages and the oldest pending scope
	 */
	OutboxStats stats();

}
