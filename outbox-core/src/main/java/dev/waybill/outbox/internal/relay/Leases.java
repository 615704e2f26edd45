package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The scopes this relay holds, from claim until their outcome is recorded, and the renewal of
 * their leases. Leases are short so that a dead relay's scopes are taken over soon; a live relay
 * renews every third of the lease what it still works on, so a slow confirm or a database blip
 * while recording an outcome never hands a scope to another relay.
 */
final class Leases {

	private static final Log logger = LogFactory.getLog(Leases.class);

	/** How many leases a scope may be held without an outcome before it is no longer renewed. */
	static final int MAX_HOLD_LEASES = 5;

	private final OutboxStore store;

	private final Duration lease;

	/** In place of a claim time: the scope's outcome is known and waits to be recorded. */
	private static final long OUTCOME_KNOWN = Long.MIN_VALUE;

	/**
	 * Scope ids by lease owner, each with the {@link System#nanoTime()} it was claimed at, or
	 * {@link #OUTCOME_KNOWN}.
	 */
	private final Map<String, Map<UUID, Long>> heldByOwner = new ConcurrentHashMap<>();

	Leases(OutboxStore store, Duration lease) {
		this.store = store;
		this.lease = lease;
	}

	Duration lease() {
		return this.lease;
	}

	/**
	 * How often the held leases are renewed: a third of the lease, so two renewals can fail before
	 * one expires.
	 */
	Duration renewInterval() {
		return this.lease.dividedBy(3);
	}

	void hold(List<ClaimedScope> scopes) {
		long now = System.nanoTime();
		for (ClaimedScope scope : scopes) {
			this.heldByOwner.computeIfAbsent(scope.leaseOwner(), (owner) -> new ConcurrentHashMap<>()).put(scope.id(), now);
		}
	}

	/**
	 * Keeps renewing a scope whose outcome is known until it is recorded ({@link #settled}): the
	 * bound of {@link #MAX_HOLD_LEASES} is for scopes without an outcome. Recording can fall behind
	 * under load; were the lease left to expire meanwhile, another claim would publish the scope
	 * again. The settler bounds failing writes itself.
	 */
	void outcomeKnown(ClaimedScope scope) {
		this.heldByOwner.computeIfPresent(scope.leaseOwner(), (owner, ids) -> {
			ids.replace(scope.id(), OUTCOME_KNOWN);
			return ids;
		});
	}

	/**
	 * Forgets a scope whose outcome is recorded (or whose lease was lost).
	 */
	void settled(ClaimedScope scope) {
		this.heldByOwner.computeIfPresent(scope.leaseOwner(), (owner, ids) -> {
			ids.remove(scope.id());
			return ids.isEmpty() ? null : ids;
		});
	}

	/**
	 * Gives back every scope still held, due at once and without counting the attempt, so another
	 * relay takes them over now rather than when their leases expire; called when stopping, once
	 * the settler recorded what it could.
	 * @return how many were given back
	 */
	int releaseAll() {
		int released = 0;
		for (Map.Entry<String, Map<UUID, Long>> entry : this.heldByOwner.entrySet()) {
			List<UUID> ids = List.copyOf(entry.getValue().keySet());
			if (ids.isEmpty()) {
				continue;
			}
			try {
				released += this.store.release(entry.getKey(), ids, Duration.ZERO);
			}
			catch (RuntimeException ex) {
				logger.warn("Waybill relay could not give back " + ids.size()
						+ " scope(s) it holds; they are delivered again once their leases expire: " + ex);
			}
		}
		this.heldByOwner.clear();
		return released;
	}

	/** Forgets every held scope without giving it back: each is taken over once its lease expires. */
	void forgetAll() {
		this.heldByOwner.clear();
	}

	int held() {
		return this.heldByOwner.values().stream().mapToInt(Map::size).sum();
	}

	/**
	 * Renews every held lease, one statement per claim. A scope held for {@link #MAX_HOLD_LEASES}
	 * leases without an outcome (which the transport's confirm timeout should have given long
	 * before) is no longer renewed: it is left to its lease, so nothing is held for ever. A scope
	 * whose outcome is known is renewed until the outcome is recorded.
	 */
	void renew() {
		long now = System.nanoTime();
		long maxHold = this.lease.toNanos() * MAX_HOLD_LEASES;
		for (Map.Entry<String, Map<UUID, Long>> entry : this.heldByOwner.entrySet()) {
			List<UUID> ids = new ArrayList<>();
			for (Map.Entry<UUID, Long> held : entry.getValue().entrySet()) {
				if (held.getValue() != OUTCOME_KNOWN && now - held.getValue() > maxHold) {
					entry.getValue().remove(held.getKey());
					logger.warn("Waybill relay has had no outcome for scope " + held.getKey() + " in "
							+ this.lease.multipliedBy(MAX_HOLD_LEASES) + "; it is left to its lease and delivered again");
				}
				else {
					ids.add(held.getKey());
				}
			}
			if (ids.isEmpty()) {
				this.heldByOwner.computeIfPresent(entry.getKey(), (owner, held) -> held.isEmpty() ? null : held);
				continue;
			}
			try {
				this.store.renew(entry.getKey(), ids, this.lease);
			}
			catch (StoreUnavailableException ex) {
				logger.debug("Waybill relay did not renew the leases of " + ids.size() + " scope(s) it holds: " + ex.getMessage());
			}
			catch (RuntimeException ex) {
				logger.warn("Waybill relay could not renew the leases of " + ids.size()
						+ " scope(s) it holds; retrying in " + renewInterval() + ": " + ex);
			}
		}
	}

}
