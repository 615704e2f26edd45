package dev.waybill.outbox.relay;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

	private final OutboxStore store;

	private final Duration lease;

	private final Map<String, Set<UUID>> heldByOwner = new ConcurrentHashMap<>();

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
		for (ClaimedScope scope : scopes) {
			this.heldByOwner.computeIfAbsent(scope.leaseOwner(), (owner) -> ConcurrentHashMap.newKeySet()).add(scope.id());
		}
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

	int held() {
		return this.heldByOwner.values().stream().mapToInt(Set::size).sum();
	}

	/**
	 * Renews every held lease, one statement per claim.
	 */
	void renew() {
		for (Map.Entry<String, Set<UUID>> entry : this.heldByOwner.entrySet()) {
			List<UUID> ids = List.copyOf(entry.getValue());
			if (ids.isEmpty()) {
				continue;
			}
			try {
				this.store.renew(entry.getKey(), ids, this.lease);
			}
			catch (RuntimeException ex) {
				logger.warn("Waybill relay could not renew the leases of " + ids.size()
						+ " scope(s) it holds; retrying in " + renewInterval() + ": " + ex);
			}
		}
	}

}
