package dev.waybill.outbox.test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * An {@link OutboxStore} that forwards every call, the interface's default methods included, to
 * another store: tests and benchmarks extend it and override only the calls they time, slow
 * down or break.
 */
public abstract class ForwardingOutboxStore implements OutboxStore {

	private final OutboxStore delegate;

	/**
	 * Creates a store forwarding to {@code delegate}.
	 * @param delegate the store that does the work
	 */
	protected ForwardingOutboxStore(OutboxStore delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
	}

	/**
	 * Returns the store calls are forwarded to.
	 * @return the delegate
	 */
	protected OutboxStore delegate() {
		return this.delegate;
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return this.delegate.claim(leaseOwner, lease, limit);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return this.delegate.claim(leaseOwner, lease, limit, commitOn);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn,
			KeysInFlight inFlight) {
		// Without keys in flight it is the claim above, so that a subclass overriding that one sees every claim.
		return inFlight.isEmpty() ? claim(leaseOwner, lease, limit, commitOn)
				: this.delegate.claim(leaseOwner, lease, limit, commitOn, inFlight);
	}

	@Override
	public int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		return this.delegate.renew(leaseOwner, scopeIds, lease);
	}

	@Override
	public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		return this.delegate.markPublished(leaseOwner, scopeIds);
	}

	@Override
	public boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		return this.delegate.retryLater(scopeId, leaseOwner, error, retryDelay);
	}

	@Override
	public boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		return this.delegate.deadLetter(scopeId, leaseOwner, error);
	}

	@Override
	public int expire(String leaseOwner, Collection<UUID> scopeIds) {
		return this.delegate.expire(leaseOwner, scopeIds);
	}

	@Override
	public int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		return this.delegate.release(leaseOwner, scopeIds, delay);
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return this.delegate.redrive(scopeIds);
	}

	@Override
	public int redriveDestination(String destination) {
		return this.delegate.redriveDestination(destination);
	}

	@Override
	public int redriveAll() {
		return this.delegate.redriveAll();
	}

	@Override
	public OutboxStats stats() {
		return this.delegate.stats();
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		return this.delegate.skip(scopeIds);
	}

	@Override
	public int promoteHeldHeads() {
		return this.delegate.promoteHeldHeads();
	}

}
