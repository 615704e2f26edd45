package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.TransportException;

/**
 * Decides a failed scope's fate by whose failure it was: the broker's ({@code UNAVAILABLE}) gives
 * it back due at once without counting an attempt, the message's ({@code MESSAGE}) retries it with
 * backoff until the retry policy is exhausted, and a {@code PERMANENT} one makes it dead at once.
 * A scope's first failure is logged at WARN, at most once a minute per destination.
 */
final class FailedScopes {

	private final OutboxStore store;

	private final RetryPolicy retry;

	private final RelayListener listener;

	private final Consumer<Duration> dueIn;

	private final DeadLetters deadLetters;

	private final FailureLog failureLog = new FailureLog(Duration.ofMinutes(1));

	FailedScopes(OutboxStore store, RetryPolicy retry, RelayListener listener, Consumer<Duration> dueIn,
			DeadLetters deadLetters) {
		this.store = store;
		this.retry = retry;
		this.listener = listener;
		this.dueIn = dueIn;
		this.deadLetters = deadLetters;
	}

	/**
	 * Records a failed outcome, with the scope and its first message in the logging context.
	 * @param outcome an outcome with at least one failure
	 */
	void settle(Outcome outcome) {
		ClaimedScope scope = outcome.scope();
		@Nullable OutboxMessage first = scope.messages().isEmpty() ? null : scope.messages().get(0);
		try (WaybillMdc mdc = WaybillMdc.relay(scope.id(), (first != null) ? first.messageId() : null,
				(first != null) ? first.messageType() : null)) {
			settle(scope, outcome);
		}
	}

	private void settle(ClaimedScope scope, Outcome outcome) {
		TransportException failure = worst(outcome.failures());
		String error = describe(failure, outcome.failures().size(), scope);
		switch (failure.kind()) {
			case UNAVAILABLE -> {
				if (outcome.written(this.store.release(scope.leaseOwner(), List.of(scope.id()), Duration.ZERO) == 1)) {
					this.dueIn.accept(Duration.ZERO);
					this.listener.released(scope, error);
				}
			}
			case PERMANENT -> this.deadLetters.deadLetter(outcome, error);
			case MESSAGE -> {
				if (scope.attempts() == 1 && !this.retry.exhausted(1)) {
					this.failureLog.warn(outcome.destinations(), "Waybill outbox scope " + scope.id() + " to "
							+ outcome.destinations() + " failed its first delivery attempt; retrying with backoff: " + error);
				}
				if (this.retry.exhausted(scope.attempts())) {
					this.deadLetters.deadLetter(outcome, error);
				}
				else {
					Duration delay = this.retry.delay(scope.attempts() - 1);
					if (outcome.written(this.store.retryLater(scope.id(), scope.leaseOwner(), error, delay))) {
						this.dueIn.accept(delay);
						this.listener.retrying(scope, error, delay);
					}
				}
			}
		}
	}

	// A permanent failure decides the scope's fate; otherwise the broker's failure costs no attempt.
	static TransportException worst(List<TransportException> failures) {
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

	static String describe(TransportException failure, int failed, ClaimedScope scope) {
		String text = failure.kind() + ": " + failure.getMessage();
		return failed > 1 ? text + " (and " + (failed - 1) + " more of the scope's " + scope.messages().size()
				+ " messages)" : text;
	}

}
