package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.TransportException;

/**
 * Records the outcome of each published scope, on one thread, so broker callbacks never wait on
 * the database: confirmed scopes are marked published together, one statement per claim; a
 * failure is retried with backoff, dead-lettered, or given back, by whose failure it was. A
 * scope's first failure is logged at WARN, at most once a minute per destination; its death at
 * ERROR. A write that fails is tried again with backoff (50 ms, doubling, at most 2 s).
 */
final class Settler {

	private static final Log logger = LogFactory.getLog(Settler.class);

	private final OutboxStore store;

	private final RetryPolicy retry;

	private final RelayListener listener;

	private final CircuitBreaker breaker;

	private final Consumer<Duration> dueIn;

	/** Wakes the relay's workers: a published keyed scope may have made its key's next claimable. */
	private final Runnable promoted;

	private volatile DeadScopePolicy deadScopePolicy = DeadScopePolicy.BLOCK;

	static final Duration BOOKKEEPING_FIRST_DELAY = Duration.ofMillis(50);

	static final Duration BOOKKEEPING_MAX_DELAY = Duration.ofSeconds(2);

	private final Leases leases;

	private final FailureLog failureLog = new FailureLog(Duration.ofMinutes(1));

	private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

	private volatile boolean stopping;

	/** Outcomes whose write failed, tried again at {@link #retryAt}; only the settling thread uses them. */
	private final List<Outcome> retries = new ArrayList<>();

	private long retryAt;

	private int bookkeepingFailures;

	private String lastBookkeepingError = "";

	Settler(OutboxStore store, Leases leases, RetryPolicy retry, RelayListener listener, CircuitBreaker breaker,
			Consumer<Duration> dueIn, Runnable promoted) {
		this.promoted = promoted;
		this.leases = leases;
		this.store = store;
		this.retry = retry;
		this.listener = listener;
		this.breaker = breaker;
		this.dueIn = dueIn;
	}

	void setDeadScopePolicy(DeadScopePolicy policy) {
		this.deadScopePolicy = policy;
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
				Outcome first = this.outcomes.poll(pollMillis(), TimeUnit.MILLISECONDS);
				if (first != null) {
					batch.add(first);
					this.outcomes.drainTo(batch);
				}
				takeDueRetries(batch);
				if (!batch.isEmpty()) {
					unrecorded(settle(batch));
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
		if (!this.retries.isEmpty()) {
			logger.warn("Waybill relay stopped before it could record the outcome of " + this.retries.size()
					+ " scope(s); they are delivered again when their leases expire");
		}
	}

	private long pollMillis() {
		long wait = Relay.STOP_CHECK.toMillis();
		if (!this.retries.isEmpty()) {
			wait = Math.min(wait, Math.max(0, TimeUnit.NANOSECONDS.toMillis(this.retryAt - System.nanoTime())));
		}
		return wait;
	}

	private void takeDueRetries(List<Outcome> batch) {
		if (!this.retries.isEmpty() && System.nanoTime() - this.retryAt >= 0) {
			batch.addAll(this.retries);
			this.retries.clear();
		}
	}

	// A write that did not go through (the database connection was lost, say) is tried again
	// promptly with backoff, the outcome kept here meanwhile: the leases are renewed while they
	// are held, and the writes are fenced by the lease owner, so a late write is harmless.
	private void unrecorded(List<Outcome> failed) {
		if (failed.isEmpty()) {
			if (this.bookkeepingFailures > 0) {
				logger.info("Waybill relay recorded the delivery outcomes again after " + this.bookkeepingFailures
						+ " failed attempt(s)");
				this.bookkeepingFailures = 0;
			}
			return;
		}
		this.bookkeepingFailures++;
		Duration delay = bookkeepingDelay(this.bookkeepingFailures);
		long now = System.nanoTime();
		for (Outcome outcome : failed) {
			if (outcome.unrecordedSince == 0) {
				outcome.unrecordedSince = now;
			}
			if (now - outcome.unrecordedSince > this.leases.lease().toNanos()) {
				// Bounded: past a lease, the scope is left to its lease like a relay that died.
				this.leases.settled(outcome.scope());
				logger.warn("Waybill relay gives up recording the outcome of scope " + outcome.scope().id()
						+ " after a lease; it is delivered again once its lease expires: " + this.lastBookkeepingError);
			}
			else {
				this.retries.add(outcome);
			}
		}
		this.retryAt = System.nanoTime() + delay.toNanos();
		if (this.bookkeepingFailures == 1) {
			logger.warn("Waybill relay could not record the delivery outcome of " + failed.size()
					+ " scope(s); retrying with backoff, from " + delay.toMillis() + " ms: " + this.lastBookkeepingError);
		}
		else {
			logger.debug("Waybill relay still cannot record delivery outcomes (try " + this.bookkeepingFailures
					+ "), next in " + delay.toMillis() + " ms: " + this.lastBookkeepingError);
		}
	}

	static Duration bookkeepingDelay(int failures) {
		long millis = BOOKKEEPING_FIRST_DELAY.toMillis() << Math.min(failures - 1, 10);
		return Duration.ofMillis(Math.min(millis, BOOKKEEPING_MAX_DELAY.toMillis()));
	}

	/**
	 * Records the outcomes, each write on its own.
	 * @return the outcomes whose write failed
	 */
	private List<Outcome> settle(List<Outcome> batch) {
		List<Outcome> failed = new ArrayList<>();
		Map<String, List<Outcome>> publishedByOwner = new LinkedHashMap<>();
		for (Outcome outcome : batch) {
			if (outcome.expired) {
				try {
					if (this.store.expire(outcome.scope().leaseOwner(), List.of(outcome.scope().id())) == 1) {
						logger.debug("Waybill outbox scope " + outcome.scope().id() + " expired before it was published");
						this.listener.expired(outcome.scope());
					}
					this.leases.settled(outcome.scope());
				}
				catch (RuntimeException ex) {
					this.lastBookkeepingError = ex.toString();
					failed.add(outcome);
				}
			}
			else if (outcome.failures().isEmpty()) {
				publishedByOwner.computeIfAbsent(outcome.scope().leaseOwner(), (owner) -> new ArrayList<>()).add(outcome);
			}
			else {
				try {
					settleFailure(outcome);
					this.leases.settled(outcome.scope());
				}
				catch (RuntimeException ex) {
					this.lastBookkeepingError = ex.toString();
					failed.add(outcome);
				}
			}
		}
		// Outcomes whose earlier write failed are marked apart from the others: when a write's
		// reply was lost (the connection broke during it) the write may have committed, and a scope
		// this relay marked itself is not one another relay took over.
		Map<MarkGroup, List<Outcome>> groups = new LinkedHashMap<>();
		publishedByOwner.forEach((owner, published) -> published.forEach((outcome) -> groups
			.computeIfAbsent(new MarkGroup(owner, outcome.unrecordedSince != 0), (group) -> new ArrayList<>())
			.add(outcome)));
		groups.forEach((group, outcomes) -> {
			String owner = group.owner();
			boolean retried = group.retried();
			List<UUID> ids = outcomes.stream().map((outcome) -> outcome.scope().id()).toList();
			int marked;
			try {
				marked = this.store.markPublished(owner, ids);
			}
			catch (RuntimeException ex) {
				this.lastBookkeepingError = ex.toString();
				failed.addAll(outcomes);
				return;
			}
			this.breaker.recordSuccess();
			if (outcomes.stream().anyMatch((outcome) -> hasOrderingKey(outcome.scope()))) {
				this.promoted.run();
			}
			// The mark is fenced by the lease owner: a relay that paused (or fell behind) for more
			// than a lease lost these scopes to another relay, which publishes them again. They are
			// not this relay's to report published (the store does not say which of a partly
			// marked batch it marked, so a partial batch reports none).
			boolean all = marked == ids.size();
			boolean published = all || retried;
			if (!all && retried) {
				// The scopes' leases were renewed while their outcome waited here, so the likely
				// reason is that the earlier write, whose answer was lost, committed: they are
				// published, and no other relay publishes them again.
				logger.info("Waybill relay found " + (ids.size() - marked) + " of " + ids.size() + " published scope(s) "
						+ "no longer leased to it when it recorded them again: its earlier write, whose answer was lost, "
						+ "most likely committed (else, after a database outage longer than a lease, another relay took "
						+ "them over and publishes them again): " + ids);
			}
			else if (!all) {
				logger.warn("Waybill relay lost the lease of " + (ids.size() - marked) + " of " + ids.size()
						+ " scope(s) it published before it could record them (it paused, fell behind, or waited for"
						+ " a pooled connection, for more than a lease: is the connection pool large enough?); another"
						+ " relay took them over and publishes them again: " + ids);
			}
			outcomes.forEach((outcome) -> {
				this.leases.settled(outcome.scope());
				if (published) {
					this.listener.published(outcome.scope(), outcome.completedAt());
				}
			});
		});
		return failed;
	}

	private void settleFailure(Outcome outcome) {
		ClaimedScope scope = outcome.scope();
		@Nullable OutboxMessage first = scope.messages().isEmpty() ? null : scope.messages().get(0);
		try (WaybillMdc mdc = WaybillMdc.relay(scope.id(), (first != null) ? first.messageId() : null,
				(first != null) ? first.messageType() : null)) {
			settleFailure(scope, outcome);
		}
	}

	private void settleFailure(ClaimedScope scope, Outcome outcome) {
		TransportException failure = worst(outcome.failures());
		String error = describe(failure, outcome.failures().size(), scope);
		switch (failure.kind()) {
			case UNAVAILABLE -> {
				if (written(this.store.release(scope.leaseOwner(), List.of(scope.id()), Duration.ZERO) == 1, outcome)) {
					this.dueIn.accept(Duration.ZERO);
					this.listener.released(scope, error);
				}
			}
			case PERMANENT -> deadLetter(scope, error, outcome);
			case MESSAGE -> {
				if (scope.attempts() == 1 && !this.retry.exhausted(1)) {
					this.failureLog.warn(destinations(scope), "Waybill outbox scope " + scope.id() + " to "
							+ destinations(scope) + " failed its first delivery attempt; retrying with backoff: " + error);
				}
				if (this.retry.exhausted(scope.attempts())) {
					deadLetter(scope, error, outcome);
				}
				else {
					Duration delay = this.retry.delay(scope.attempts() - 1);
					if (written(this.store.retryLater(scope.id(), scope.leaseOwner(), error, delay), outcome)) {
						this.dueIn.accept(delay);
						this.listener.retrying(scope, error, delay);
					}
				}
			}
		}
	}

	/**
	 * Whether a fenced write of the outcome took effect: it matched the scope, or it matched nothing
	 * on a retry after a write whose answer was lost, which then had committed (the scope's lease was
	 * renewed while its outcome waited here, so no other relay took it over).
	 */
	private static boolean written(boolean matched, Outcome outcome) {
		return matched || outcome.unrecordedSince != 0;
	}

	private void deadLetter(ClaimedScope scope, String error, Outcome outcome) {
		if (written(this.store.deadLetter(scope.id(), scope.leaseOwner(), error), outcome)) {
			logger.error("Waybill outbox scope " + scope.id() + " to " + destinations(scope) + " is dead after "
					+ scope.attempts() + " attempt(s), kept for redrive: " + error);
			this.listener.deadLettered(scope, error);
			if (this.deadScopePolicy == DeadScopePolicy.SKIP && hasOrderingKey(scope)
					&& this.store.skip(List.of(scope.id())) > 0) {
				logger.warn("Waybill skipped dead scope " + scope.id() + " in the order of its ordering key "
						+ scope.messages().get(0).orderingKey() + " (waybill.outbox.ordering.dead-scope=skip)");
				this.promoted.run();
			}
		}
	}

	private static boolean hasOrderingKey(ClaimedScope scope) {
		return !scope.messages().isEmpty() && scope.messages().get(0).orderingKey() != null;
	}

	// A permanent failure decides the scope's fate; otherwise the broker's failure costs no attempt.
	private static TransportException worst(List<TransportException> failures) {
		TransportException worst = failures.get(0);
		for (TransportException failure : failures) {
			if (rank(failure.kind()) > rank(worst.kind())) {
				worst = failure;
			}
		}
		return worst;
	}

	private static int rank(TransportException.Kind kind) {
		return switch (kind) {
			case MESSAGE -> 0;
			case UNAVAILABLE -> 1;
			case PERMANENT -> 2;
		};
	}

	/** The exchanges, or for the default exchange (which routes by queue name) the queues. */
	private static String destinations(ClaimedScope scope) {
		return scope.messages().stream()
			.map((message) -> message.destination().isEmpty() ? "queue '" + message.routingKey() + "'"
					: "'" + message.destination() + "'")
			.distinct()
			.collect(java.util.stream.Collectors.joining(", "));
	}

	private static String describe(TransportException failure, int failed, ClaimedScope scope) {
		String text = failure.kind() + ": " + failure.getMessage();
		return failed > 1 ? text + " (and " + (failed - 1) + " more of the scope's " + scope.messages().size()
				+ " messages)" : text;
	}

	/** Published outcomes marked in one statement: one lease owner's, tried before or not. */
	private record MarkGroup(String owner, boolean retried) {
	}

	private static final class Outcome {

		private final ClaimedScope scope;

		private final List<TransportException> failures;

		private final Instant completedAt;

		/** Whether the scope expired before it was published. */
		final boolean expired;

		/** When its write first failed ({@link System#nanoTime()}), or 0. */
		long unrecordedSince;

		Outcome(ClaimedScope scope, List<TransportException> failures, Instant completedAt, boolean expired) {
			this.expired = expired;
			this.scope = scope;
			this.failures = failures;
			this.completedAt = completedAt;
		}

		ClaimedScope scope() {
			return this.scope;
		}

		List<TransportException> failures() {
			return this.failures;
		}

		Instant completedAt() {
			return this.completedAt;
		}

	}

}
