package dev.waybill.outbox.relay;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import dev.waybill.outbox.spi.ClaimedScope;

/**
 * Hooks into what the relay does with each scope, for metrics and logging. Every method has a
 * no-op default and is called on the relay's settling thread after the store recorded the
 * outcome; a crash between the two can skip a call. Implementations must be quick and must not
 * throw.
 *
 * @since 0.1
 */
public interface RelayListener {

	/** A listener that does nothing. */
	RelayListener NONE = new RelayListener() {
	};

	/**
	 * Every message of the scope was confirmed and the scope is marked published.
	 * @param scope the scope
	 * @param confirmedAt when the last confirm arrived
	 */
	default void published(ClaimedScope scope, Instant confirmedAt) {
	}

	/**
	 * The attempt failed because of the message; the scope waits {@code delay} for its next one.
	 * @param scope the scope
	 * @param error what went wrong
	 * @param delay the wait before the next attempt
	 */
	default void retrying(ClaimedScope scope, String error, Duration delay) {
	}

	/**
	 * The scope is dead: its attempts are exhausted or its failure is permanent.
	 * @param scope the scope
	 * @param error what went wrong last
	 */
	default void deadLettered(ClaimedScope scope, String error) {
	}

	/**
	 * The scope's messages expired (their time-to-live passed) before they could be published: the
	 * scope is recorded as expired and not published.
	 * @param scope the scope
	 * @since 0.1
	 */
	default void expired(ClaimedScope scope) {
	}

	/**
	 * The broker failed, not the message: the scope was given back without counting the attempt.
	 * @param scope the scope
	 * @param error what went wrong
	 */
	default void released(ClaimedScope scope, String error) {
	}

	/**
	 * The circuit breaker changed state.
	 * @param state the new state
	 */
	default void circuitChanged(CircuitState state) {
	}

	/**
	 * Returns a listener that calls this one, then {@code next}.
	 * @param next the listener to call second
	 * @return the combined listener
	 */
	default RelayListener andThen(RelayListener next) {
		Objects.requireNonNull(next, "next must not be null");
		RelayListener first = this;
		return new RelayListener() {
			@Override
			public void published(ClaimedScope scope, Instant confirmedAt) {
				first.published(scope, confirmedAt);
				next.published(scope, confirmedAt);
			}

			@Override
			public void retrying(ClaimedScope scope, String error, Duration delay) {
				first.retrying(scope, error, delay);
				next.retrying(scope, error, delay);
			}

			@Override
			public void deadLettered(ClaimedScope scope, String error) {
				first.deadLettered(scope, error);
				next.deadLettered(scope, error);
			}

			@Override
			public void expired(ClaimedScope scope) {
				first.expired(scope);
				next.expired(scope);
			}

			@Override
			public void released(ClaimedScope scope, String error) {
				first.released(scope, error);
				next.released(scope, error);
			}

			@Override
			public void circuitChanged(CircuitState state) {
				first.circuitChanged(state);
				next.circuitChanged(state);
			}
		};
	}

}
