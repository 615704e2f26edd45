package dev.waybill.outbox;

import java.util.Collection;
import java.util.Optional;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * Operations on the outbox for operators: inspect the backlog, list pending and dead scopes and
 * look into their messages, redrive dead scopes and delete them. A redriven scope is pending again
 * with its attempts reset, and the relays are woken at once. Every change is recorded by
 * {@link AdminAudit} (a log line and the meter {@code waybill.admin.actions}).
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
	 * @since 0.1
	 */
	default int skip(Collection<UUID> scopeIds) {
		throw new UnsupportedOperationException(getClass().getName() + " does not support ordering keys");
	}

	/**
	 * Reads the backlog now.
	 * @return pending, due and dead scopes, pending messages and the oldest pending scope
	 */
	OutboxStats stats();

	/**
	 * Lists scopes of one status, oldest first.
	 * @param status pending or dead
	 * @param destination only scopes with a message for this destination (exchange), or {@literal null} for all
	 * @param offset how many matching scopes to skip, at least 0
	 * @param limit the page size, 1 to 500
	 * @return the page
	 * @since 0.1
	 */
	ScopePage scopes(ScopeStatus status, @Nullable String destination, int offset, int limit);

	/**
	 * Looks into one scope (of any status): its state and its first messages, with headers and the
	 * start of each body.
	 * @param scopeId the scope id
	 * @param maxMessages the most messages to return, 1 to 100
	 * @param previewBytes the most bytes of each body to return, 0 to 65536
	 * @return the scope, or empty when there is none with that id (or it was published and purged)
	 * @since 0.1
	 */
	Optional<ScopeDetails> scope(UUID scopeId, int maxMessages, int previewBytes);

	/**
	 * Redrives the given dead scopes, recording who did it.
	 * @param scopeIds the scope ids; ids of scopes that are not dead are ignored
	 * @param actor who asks, for the audit
	 * @return how many were redriven
	 * @since 0.1
	 */
	int redrive(Collection<UUID> scopeIds, String actor);

	/**
	 * Deletes the given dead scopes and their messages for good, recording who did it. Only dead
	 * scopes are deleted: a pending scope is the relay's.
	 * @param scopeIds the scope ids; ids of scopes that are not dead are ignored
	 * @param actor who asks, for the audit
	 * @return how many were deleted
	 * @since 0.1
	 */
	int deleteDead(Collection<UUID> scopeIds, String actor);

}
