package dev.waybill.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.ForwardingOutboxStore;

/**
 * An {@link OutboxStore} that notes when each claimed message's claim returned to the relay, so
 * the latency benchmark can split claim to confirm into the claim itself (statement and commit)
 * and what follows it (hand-over to the channel, the broker's confirm).
 */
final class TimedStore extends ForwardingOutboxStore {

	private final Map<UUID, Instant> claimReturned = new ConcurrentHashMap<>();

	private volatile boolean commitFirst;

	private final java.util.concurrent.atomic.AtomicLong claims = new java.util.concurrent.atomic.AtomicLong();

	private final java.util.concurrent.atomic.AtomicLong emptyClaims = new java.util.concurrent.atomic.AtomicLong();

	TimedStore(OutboxStore store) {
		super(store);
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
		return returned(delegate().claim(leaseOwner, lease, limit));
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return returned(this.commitFirst ? delegate().claim(leaseOwner, lease, limit)
				: delegate().claim(leaseOwner, lease, limit, commitOn));
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn,
			KeysInFlight inFlight) {
		return returned(this.commitFirst ? delegate().claim(leaseOwner, lease, limit)
				: delegate().claim(leaseOwner, lease, limit, commitOn, inFlight));
	}

	/**
	 * Returns how many claims ran and how many of them found nothing, since the last call.
	 * @return claims, then empty claims
	 */
	long[] takeClaimCounts() {
		return new long[] { this.claims.getAndSet(0), this.emptyClaims.getAndSet(0) };
	}

	private List<ClaimedScope> returned(List<ClaimedScope> scopes) {
		this.claims.incrementAndGet();
		if (scopes.isEmpty()) {
			this.emptyClaims.incrementAndGet();
		}
		Instant now = Instant.now();
		for (ClaimedScope scope : scopes) {
			for (OutboxMessage message : scope.messages()) {
				this.claimReturned.put(message.messageId(), now);
			}
		}
		return scopes;
	}

}
