package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The relay's side of direct dispatch: scopes written in this process leased to the relay
 * ({@link #reserve}) are queued after their commit ({@link #committed}) and published by the
 * relay's direct worker, as if it had claimed them at their write; their outcomes are settled as
 * every claimed scope's. So a message written here reaches the broker without a wake-up, a claim
 * statement or a claim commit between its commit and its publish.
 * <p>
 * Why nothing is lost: the lease is written in the business transaction, so no other relay claims
 * the scope while this one may publish it. If this process dies before the publish, or the relay
 * cannot take the scope after all (it stopped, the broker became unavailable), the scope is given
 * back (due at once, its attempt not counted) or, failing that, its lease expires and any relay's
 * claim delivers it, exactly as after a crash with a claimed scope.
 */
final class DirectDispatch implements DirectDispatcher {

	private static final Log logger = LogFactory.getLog(DirectDispatch.class);

	/** Messages leased and not yet settled, at most: the transport's window of unconfirmed messages. */
	static final int MAX_MESSAGES = 1000;

	/** The most messages of one scope sent this way; larger scopes are claimed. */
	static final int MAX_SCOPE_MESSAGES = 100;

	private final OutboxStore store;

	private final RelayWakeUp wakeUp;

	private final CircuitBreaker breaker;

	private final Leases leases;

	private final Duration leaseDuration;

	/** Whether the relay claims and publishes: started, not stopped, none of its threads died. */
	private final BooleanSupplier active;

	private final String owner;

	private final Semaphore room = new Semaphore(MAX_MESSAGES);

	private final BlockingQueue<ClaimedScope> queue = new LinkedBlockingQueue<>();

	/** Committed too late after their write to be published on their lease: to be given back. */
	private final BlockingQueue<ClaimedScope> late = new LinkedBlockingQueue<>();

	DirectDispatch(String relayId, OutboxStore store, RelayWakeUp wakeUp, CircuitBreaker breaker, Leases leases,
			Duration leaseDuration, BooleanSupplier active) {
		this.store = store;
		this.wakeUp = wakeUp;
		this.breaker = breaker;
		this.leases = leases;
		this.leaseDuration = leaseDuration;
		this.active = active;
		// One owner for every scope leased this way: each is leased so only once, at its write,
		// and every later claim of it has an owner of its own, which fences this one out.
		this.owner = relayId + "/direct";
	}

	@Override
	public @Nullable Lease reserve(OutboxScope scope) {
		int messages = scope.messages().size();
		if (!this.active.getAsBoolean() || this.breaker.state() != CircuitState.CLOSED
				|| messages > MAX_SCOPE_MESSAGES || !dueNow(scope) || !this.room.tryAcquire(messages)) {
			return null;
		}
		return new Lease(scope, this.owner, this.leaseDuration, Instant.now());
	}

	private static boolean dueNow(OutboxScope scope) {
		// A scheduled scope (a not-before time, past or future) is claimed, never leased at its write:
		// its time is due by the database's clock, which this host's may not match (a consumer's
		// redelivery is timed by the database's; a host clock ahead would send it before its backoff).
		if (scope.notBefore() != null) {
			return false;
		}
		for (OutboxMessage message : scope.messages()) {
			if (message.orderingKey() != null) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void committed(List<Lease> leases) {
		List<ClaimedScope> scopes = new ArrayList<>(leases.size());
		Instant now = Instant.now();
		for (Lease lease : leases) {
			OutboxScope scope = lease.scope();
			ClaimedScope claimed = new ClaimedScope(scope.id(), lease.writtenAt(), 1, lease.owner(),
					lease.writtenAt().plus(lease.duration()), scope.messages());
			if (now.isAfter(lease.writtenAt().plus(lease.duration().dividedBy(2)))) {
				// Its transaction took more than half a lease to commit after the write: the lease
				// might end before its first renewal and another relay claim it while this one
				// publishes. The direct worker gives it back (its attempt not counted) to be claimed.
				this.late.add(claimed);
				continue;
			}
			scopes.add(claimed);
		}
		this.leases.hold(scopes);
		this.queue.addAll(scopes);
		if (!this.active.getAsBoolean()) {
			// Stopped meanwhile: its worker may be gone, and its stop gave back what it held before.
			giveBack(drain(Integer.MAX_VALUE));
			giveBack(takeLate());
		}
	}

	/**
	 * Gives the scopes back through the direct worker, as those committed too late: when their
	 * transaction committed after all, they are due at once; when it did not, the fenced write finds
	 * nothing.
	 */
	@Override
	public void outcomeUnknown(List<Lease> leases) {
		for (Lease lease : leases) {
			OutboxScope scope = lease.scope();
			this.late.add(new ClaimedScope(scope.id(), lease.writtenAt(), 1, lease.owner(),
					lease.writtenAt().plus(lease.duration()), scope.messages()));
		}
		if (!this.active.getAsBoolean()) {
			giveBack(takeLate());
		}
	}

	@Override
	public void abandoned(List<Lease> leases) {
		for (Lease lease : leases) {
			this.room.release(lease.scope().messages().size());
		}
	}

	/**
	 * Waits up to {@code timeout} for committed scopes, and takes up to {@code max} of them.
	 */
	List<ClaimedScope> take(int max, Duration timeout) throws InterruptedException {
		ClaimedScope first = this.queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
		if (first == null) {
			return List.of();
		}
		List<ClaimedScope> batch = new ArrayList<>();
		batch.add(first);
		this.queue.drainTo(batch, max - 1);
		return batch;
	}

	/** Takes the scopes committed too late to be published directly. */
	List<ClaimedScope> takeLate() {
		List<ClaimedScope> scopes = new ArrayList<>();
		this.late.drainTo(scopes);
		return scopes;
	}

	List<ClaimedScope> drain(int max) {
		List<ClaimedScope> batch = new ArrayList<>();
		this.queue.drainTo(batch, max);
		return batch;
	}

	/** Frees the room of scopes whose outcome went to the settler (or that were given back). */
	void finished(List<ClaimedScope> scopes) {
		for (ClaimedScope scope : scopes) {
			this.room.release(scope.messages().size());
		}
	}

	/**
	 * Gives scopes back without publishing them, due at once and without counting their attempt,
	 * so the relay's workers claim them (once the broker is available again); if that write fails,
	 * their leases expire and a claim delivers them then.
	 */
	void giveBack(List<ClaimedScope> scopes) {
		if (scopes.isEmpty()) {
			return;
		}
		List<UUID> ids = scopes.stream().map(ClaimedScope::id).toList();
		try {
			this.store.release(this.owner, ids, Duration.ZERO);
			this.wakeUp.signal();
		}
		catch (RuntimeException ex) {
			logger.warn("Waybill relay could not give back " + ids.size() + " scope(s) it was to publish directly; "
					+ "they are delivered once their leases expire: " + ex);
		}
		finally {
			for (ClaimedScope scope : scopes) {
				this.leases.settled(scope);
			}
			finished(scopes);
		}
	}

}
