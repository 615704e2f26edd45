package dev.waybill.outbox.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;

import dev.waybill.outbox.OutboxStats;

/**
 * The relay's view of the outbox. Every method is one short statement in a transaction of its
 * own (never the caller's), so no lock or connection is held while a relay waits on the broker.
 * Methods that settle a claimed scope are fenced by the lease owner: a relay whose lease was
 * taken over changes nothing.
 *
 * @since 0.1
 */
public interface OutboxStore {

	/**
	 * Claims up to {@code limit} due pending scopes, oldest due first, skipping scopes another
	 * claimer holds: counts an attempt on each and leases it to {@code leaseOwner} until now plus
	 * {@code lease}. A scope whose lease expires without being settled is due again. A store may
	 * claim, behind the first unpublished scope of an ordering key, up to {@code limit - 1} of
	 * the key's next scopes with it (a run), so a claim can return more than {@code limit} scopes;
	 * the scopes of one key come in their key's order.
	 * @param leaseOwner who claims, must not be blank
	 * @param lease how long the claim holds, must be positive
	 * @param limit the most scopes to claim, and to claim behind each ordering key's first, must be
	 * positive
	 * @return the claimed scopes with their messages in publish order; empty when none is due
	 */
	List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit);

	/**
	 * Claims like {@link #claim(String, Duration, int)}, but returns once the claim has run,
	 * before its transaction commits: the commit runs on {@code commitOn}, so the caller can
	 * publish the scopes while the commit's flush is under way. Until it commits the scopes are
	 * locked, so other claimers skip them, and the lease is not yet visible: a settling write
	 * fenced by the lease owner ({@link #markPublished}, {@link #retryLater}, ...) made before the
	 * commit changes nothing, so the caller makes them only once the commit ran. A claim
	 * that does not commit (the process dies, the database fails) leaves its scopes due at once
	 * with no attempt counted, and the settling writes fenced by its lease owner change nothing:
	 * whatever was published of them is published again, as at-least-once delivery allows.
	 * The default claims and commits before it returns, and runs nothing on {@code commitOn}.
	 * @param leaseOwner who claims, must not be blank
	 * @param lease how long the claim holds, must be positive
	 * @param limit the most scopes to claim, must be positive
	 * @param commitOn runs the commit, once; it must run every task it accepts
	 * @return the claimed scopes with their messages in publish order; empty when none is due
	 * @since 0.1
	 */
	default List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return claim(leaseOwner, lease, limit);
	}

	/**
	 * Claims like {@link #claim(String, Duration, int, Executor)} and also continues the keys the
	 * claimer has in flight: behind each {@linkplain KeysInFlight.Key#continuable() continuable}
	 * key, its next scopes in order, each pending, due and of one message to the key's destination
	 * and routing key, read from the key's {@linkplain KeysInFlight.Key#fromScope() first unsettled
	 * scope} on, as long as every unpublished scope of the key before them is leased to one of
	 * {@code inFlight}'s owners with its lease holding, and the key's scopes in flight under those
	 * owners and those taken here are at most {@code limit} (so that no more than {@code limit - 1}
	 * can go out ahead of a refused one). No scope of a key in flight is claimed otherwise, not even
	 * its head once a lease ran out (it would go out behind later scopes), so no scope is ever
	 * claimed ahead of an earlier one another claimer holds, one that waits for a retry, or a dead
	 * one. The default claims as {@link #claim(String, Duration, int, Executor)} does.
	 * @param leaseOwner who claims, must not be blank
	 * @param lease how long the claim holds, must be positive
	 * @param limit the most scopes to claim, and to claim behind each key, must be positive
	 * @param commitOn runs the commit, once; it must run every task it accepts
	 * @param inFlight the claimer's keys in flight and the owners they are leased to
	 * @return the claimed scopes with their messages in publish order; empty when none is due
	 * @since 0.1
	 */
	default List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn,
			KeysInFlight inFlight) {
		return claim(leaseOwner, lease, limit, commitOn);
	}

	/**
	 * Extends the lease of scopes their claimer still holds, so a claim can be short (a dead
	 * relay's scopes are taken over soon) while a live relay keeps what it is still working on.
	 * @param leaseOwner the owner the scopes were claimed by
	 * @param scopeIds the scopes still held
	 * @param lease the new lease, from now, must be positive
	 * @return how many were renewed; fewer when a lease was lost or a scope settled meanwhile
	 * @since 0.1
	 */
	int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease);

	/**
	 * Marks scopes published and clears their last error.
	 * @param leaseOwner the owner the scopes were claimed by
	 * @param scopeIds the scopes whose every message the broker confirmed
	 * @return how many were marked; fewer when a lease was lost to another claimer
	 */
	int markPublished(String leaseOwner, Collection<UUID> scopeIds);

	/**
	 * Records a failed attempt and schedules the next one.
	 * @param scopeId the claimed scope
	 * @param leaseOwner the owner it was claimed by
	 * @param error what went wrong, kept as the scope's last error
	 * @param retryDelay how long from now until the scope is due again
	 * @return whether the scope was updated (false when the lease was lost)
	 */
	boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay);

	/**
	 * Dead-letters a scope that exhausted its attempts: it is kept with its last error, never
	 * claimed again, and waits for {@link #redrive(Collection)}.
	 * @param scopeId the claimed scope
	 * @param leaseOwner the owner it was claimed by
	 * @param error what went wrong last
	 * @return whether the scope was updated (false when the lease was lost)
	 */
	boolean deadLetter(UUID scopeId, String leaseOwner, String error);

	/**
	 * Records claimed scopes as expired: their messages' time-to-live passed before they could be
	 * published, so they are not published, kept with status {@code expired} (final, purged by
	 * retention like published scopes) and never claimed again.
	 * @param leaseOwner the owner they were claimed by
	 * @param scopeIds the expired scopes
	 * @return how many were marked; fewer when a lease was lost to another claimer
	 * @throws UnsupportedOperationException when this store cannot (the default)
	 * @since 0.1
	 */
	default int expire(String leaseOwner, Collection<UUID> scopeIds) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot expire scopes");
	}

	/**
	 * Gives claimed scopes back without counting the attempt, e.g. when the broker, not the
	 * message, failed.
	 * @param leaseOwner the owner they were claimed by
	 * @param scopeIds the scopes to release
	 * @param delay how long from now until they are due again (zero for at once)
	 * @return how many were released
	 */
	int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay);

	/**
	 * Makes the given dead scopes pending again with their attempts reset, and wakes the relays.
	 * @param scopeIds the scopes; ids of scopes that are not dead are ignored
	 * @return how many were redriven
	 */
	int redrive(Collection<UUID> scopeIds);

	/**
	 * Redrives every dead scope with a message for {@code destination}.
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
	 * Reads the backlog: pending, due and dead scopes, pending messages, the oldest pending scope.
	 * Reads only pending and dead rows, so its cost does not grow with published rows kept for
	 * retention.
	 * @return the statistics
	 */
	OutboxStats stats();

	/**
	 * Detaches dead scopes from their ordering key so that the key's later scopes are published:
	 * each stays dead with its messages and last error (prefixed with the key it had), and a
	 * later redrive publishes it unordered. Ids of scopes that are not dead or have no key are
	 * ignored. Wakes the relays.
	 * @param scopeIds the dead scopes, must not be {@literal null}
	 * @return how many were detached
	 * @since 0.1
	 */
	default int skip(Collection<UUID> scopeIds) {
		throw new UnsupportedOperationException(getClass().getName() + " does not support ordering keys");
	}

	/**
	 * Makes claimable every key's head (its earliest unpublished scope) that is still held back:
	 * a safety net the relay runs now and then for a writer that decided on a stale snapshot.
	 * Reads only unpublished keyed scopes.
	 * @return how many heads were promoted
	 * @since 0.1
	 */
	default int promoteHeldHeads() {
		return 0;
	}

}
