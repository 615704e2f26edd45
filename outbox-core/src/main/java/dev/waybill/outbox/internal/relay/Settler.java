package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.TransportException;

/**
 * Records the outcome of each published scope, on one thread, so broker callbacks never wait on
 * the database: confirmed scopes are marked published together, one statement per claim
 * ({@link PublishedMarks}); a failure is retried with backoff, dead-lettered, or given back, by
 * whose failure it was ({@link FailedScopes}, {@link DeadLetters}). A scope's first failure is
 * logged at WARN, at most once a minute per destination; its death at ERROR. A write that fails is
 * tried again with backoff ({@link BookkeepingRetries}).
 */
final class Settler {

	private static final Log logger = LogFactory.getLog(Settler.class);

	private final OutboxStore store;

	private final RelayListener listener;

	private final Leases leases;

	private final PublishedMarks marks;

	private final DeadLetters deadLetters;

	private final FailedScopes failedScopes;

	private final BookkeepingRetries retries;

	private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

	private volatile boolean stopping;

	/**
	 * Creates a settler; {@link #run()} runs it. {@code dueIn} is told when a scope it gave back or
	 * retries falls due; {@code promoted} wakes the relay's workers when a keyed scope's successor
	 * may have become claimable.
	 */
	Settler(OutboxStore store, Leases leases, RetryPolicy retry, RelayListener listener, CircuitBreaker breaker,
			Consumer<Duration> dueIn, Runnable promoted) {
		this.store = store;
		this.listener = listener;
		this.leases = leases;
		this.marks = new PublishedMarks(store, leases, listener, breaker, promoted);
		this.deadLetters = new DeadLetters(store, listener, promoted);
		this.failedScopes = new FailedScopes(store, retry, listener, dueIn, this.deadLetters);
		this.retries = new BookkeepingRetries(leases);
	}

	void setDeadScopePolicy(DeadScopePolicy policy) {
		this.deadLetters.setDeadScopePolicy(policy);
	}

	/**
	 * Queues a scope's outcome; called from broker threads.
	 */
	void submit(ClaimedScope scope, List<TransportException> failures) {
		submit(scope, failures, Instant.now());
	}

	/**
	 * Queues a scope's outcome that was complete at {@code completedAt}.
	 */
	void submit(ClaimedScope scope, List<TransportException> failures, Instant completedAt) {
		this.leases.outcomeKnown(scope);
		this.outcomes.add(new Outcome(scope, failures, completedAt, false));
	}

	/**
	 * Queues a scope whose messages all expired before they were published.
	 */
	void submitExpired(ClaimedScope scope) {
		this.leases.outcomeKnown(scope);
		this.outcomes.add(new Outcome(scope, List.of(), Instant.now(), true));
	}

	/**
	 * Settles what is queued, then stops.
	 */
	void stop() {
		this.stopping = true;
	}

	void run() {
		List<Outcome> batch = new ArrayList<>();
		while (!this.stopping || !this.outcomes.isEmpty()) {
			try {
				Outcome first = this.outcomes.poll(this.retries.pollMillis(Relay.STOP_CHECK.toMillis()),
						TimeUnit.MILLISECONDS);
				if (first != null) {
					batch.add(first);
					this.outcomes.drainTo(batch);
				}
				this.retries.takeDue(batch);
				if (!batch.isEmpty()) {
					this.retries.roundEnded(settle(batch));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) { // a listener's failure: the settling thread carries on
				logger.warn("Waybill relay failed while recording delivery outcomes: " + ex, ex);
			}
			finally {
				batch.clear();
			}
		}
		if (this.retries.waiting() > 0) {
			logger.warn("Waybill relay stopped before it could record the outcome of " + this.retries.waiting()
					+ " scope(s); they are delivered again when their leases expire");
		}
	}

	/**
	 * Records the outcomes, each write on its own.
	 * @return the outcomes whose write failed
	 */
	private FailedWrites settle(List<Outcome> batch) {
		FailedWrites failed = new FailedWrites();
		List<Outcome> published = new ArrayList<>();
		for (Outcome outcome : batch) {
			if (outcome.expired) {
				try {
					expire(outcome.scope());
				}
				catch (RuntimeException ex) {
					failed.add(outcome, ex);
				}
			}
			else if (outcome.failures().isEmpty()) {
				published.add(outcome);
			}
			else {
				try {
					this.failedScopes.settle(outcome);
					this.leases.settled(outcome.scope());
				}
				catch (RuntimeException ex) {
					failed.add(outcome, ex);
				}
			}
		}
		this.marks.mark(published, failed);
		return failed;
	}

	private void expire(ClaimedScope scope) {
		if (this.store.expire(scope.leaseOwner(), List.of(scope.id())) == 1) {
			logger.debug("Waybill outbox scope " + scope.id() + " expired before it was published");
			this.listener.expired(scope);
		}
		this.leases.settled(scope);
	}

}
