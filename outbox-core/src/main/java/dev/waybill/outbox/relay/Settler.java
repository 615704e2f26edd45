package dev.waybill.outbox.relay;

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

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.TransportException;

/**
 * Records the outcome of each published scope, on one thread, so broker callbacks never wait on
 * the database: confirmed scopes are marked published together, one statement per claim; a
 * failure is retried with backoff, dead-lettered, or given back, by whose failure it was.
 */
final class Settler {

	private static final Log logger = LogFactory.getLog(Settler.class);

	private final OutboxStore store;

	private final RetryPolicy retry;

	private final RelayListener listener;

	private final CircuitBreaker breaker;

	private final Consumer<Duration> dueIn;

	private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

	private volatile boolean stopping;

	Settler(OutboxStore store, RetryPolicy retry, RelayListener listener, CircuitBreaker breaker,
			Consumer<Duration> dueIn) {
		this.store = store;
		this.retry = retry;
		this.listener = listener;
		this.breaker = breaker;
		this.dueIn = dueIn;
	}

	/**
	 * Queues a scope's outcome; called from broker threads.
	 */
	void submit(ClaimedScope scope, List<TransportException> failures) {
		this.outcomes.add(new Outcome(scope, failures, Instant.now()));
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
				Outcome first = this.outcomes.poll(Relay.STOP_CHECK.toMillis(), TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				batch.add(first);
				this.outcomes.drainTo(batch);
				settle(batch);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				// The leases expire and the scopes are delivered again: at least once.
				logger.warn("Waybill relay could not record delivery outcomes; the scopes will be retried when "
						+ "their leases expire: " + ex, ex);
			}
			finally {
				batch.clear();
			}
		}
	}

	private void settle(List<Outcome> batch) {
		Map<String, List<Outcome>> publishedByOwner = new LinkedHashMap<>();
		for (Outcome outcome : batch) {
			if (outcome.failures().isEmpty()) {
				publishedByOwner.computeIfAbsent(outcome.scope().leaseOwner(), (owner) -> new ArrayList<>()).add(outcome);
			}
			else {
				settleFailure(outcome);
			}
		}
		publishedByOwner.forEach((owner, published) -> {
			List<UUID> ids = published.stream().map((outcome) -> outcome.scope().id()).toList();
			this.store.markPublished(owner, ids);
			this.breaker.recordSuccess();
			published.forEach((outcome) -> this.listener.published(outcome.scope(), outcome.completedAt()));
		});
	}

	private void settleFailure(Outcome outcome) {
		ClaimedScope scope = outcome.scope();
		TransportException failure = worst(outcome.failures());
		String error = describe(failure, outcome.failures().size(), scope);
		switch (failure.kind()) {
			case UNAVAILABLE -> {
				if (this.store.release(scope.leaseOwner(), List.of(scope.id()), Duration.ZERO) == 1) {
					this.dueIn.accept(Duration.ZERO);
					this.listener.released(scope, error);
				}
			}
			case PERMANENT -> deadLetter(scope, error);
			case MESSAGE -> {
				if (this.retry.exhausted(scope.attempts())) {
					deadLetter(scope, error);
				}
				else {
					Duration delay = this.retry.delay(scope.attempts() - 1);
					if (this.store.retryLater(scope.id(), scope.leaseOwner(), error, delay)) {
						this.dueIn.accept(delay);
						this.listener.retrying(scope, error, delay);
					}
				}
			}
		}
	}

	private void deadLetter(ClaimedScope scope, String error) {
		if (this.store.deadLetter(scope.id(), scope.leaseOwner(), error)) {
			logger.warn("Waybill outbox scope " + scope.id() + " is dead after " + scope.attempts() + " attempt(s): "
					+ error);
			this.listener.deadLettered(scope, error);
		}
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

	private static String describe(TransportException failure, int failed, ClaimedScope scope) {
		String text = failure.kind() + ": " + failure.getMessage();
		return failed > 1 ? text + " (and " + (failed - 1) + " more of the scope's " + scope.messages().size()
				+ " messages)" : text;
	}

	private record Outcome(ClaimedScope scope, List<TransportException> failures, Instant completedAt) {
	}

}
