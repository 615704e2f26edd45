package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * An {@link OutboxStore} that notes when each claimed message's claim returned to the relay, so
 * the latency benchmark can split claim to confirm into the claim itself (statement and commit)
 * and what follows it (hand-over to the channel, the broker's confirm).
 */
final class TimedStore implements OutboxStore {

	private final OutboxStore store;

	private final Map<UUID, Instant> claimReturned = new ConcurrentHashMap<>();

	private volatile boolean commitFirst;

	TimedStore(OutboxStore store) {
		this.store = store;
	}

	/**
	 * Returns when the claim of each message returned, by message id.
	 * @return the live map
	 */
	Map<UUID, Instant> claimReturned() {
		return this.claimReturned;
	}

	/**
	 * Makes the relay's claims commit before they return, as they did before the commit was
	 * overlapped with the publish: for an A/B comparison in one process.
	 * @param commitFirst whether claims commit before returning
	 */
	void commitFirst(boolean commitFirst) {
		this.commitFirst = commitFirst;
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return returned(this.store.claim(leaseOwner, lease, limit));
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return returned(this.commitFirst ? this.store.claim(leaseOwner, lease, limit)
				: this.store.claim(leaseOwner, lease, limit, commitOn));
	}

	private List<ClaimedScope> returned(List<ClaimedScope> scopes) {
		Instant now = Instant.now();
		for (ClaimedScope scope : scopes) {
			for (OutboxMessage message : scope.messages()) {
				this.claimReturned.put(message.messageId(), now);
			}
		}
		return scopes;
	}

	@Override
	public int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		return this.store.renew(leaseOwner, scopeIds, lease);
	}

	@Override
	public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		return this.store.markPublished(leaseOwner, scopeIds);
	}

	@Override
	public boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		return this.store.retryLater(scopeId, leaseOwner, error, retryDelay);
	}

	@Override
	public boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		return this.store.deadLetter(scopeId, leaseOwner, error);
	}

	@Override
	public int expire(String leaseOwner, Collection<UUID> scopeIds) {
		return this.store.expire(leaseOwner, scopeIds);
	}

	@Override
	public int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		return this.store.release(leaseOwner, scopeIds, delay);
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return this.store.redrive(scopeIds);
	}

	@Override
	public int redriveDestination(String destination) {
		return this.store.redriveDestination(destination);
	}

	@Override
	public int redriveAll() {
		return this.store.redriveAll();
	}

	@Override
	public OutboxStats stats() {
		return this.store.stats();
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		return this.store.skip(scopeIds);
	}

	@Override
	public int promoteHeldHeads() {
		return this.store.promoteHeldHeads();
	}

}
