package dev.waybill.outbox.internal.relay;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.relay.CircuitState;

/**
 * Stops the relay from claiming while the broker is unreachable, so an outage costs no delivery
 * attempts. Closed, it lets claims through and counts consecutive broker failures; at the
 * threshold it opens. Open, it refuses claims until the cool-down has passed, then lets exactly
 * one caller probe the broker (half-open): success closes it, failure opens it for another
 * cool-down. Thread-safe.
 *
 * @since 0.1
 */
public final class CircuitBreaker {

	/**
	 * What {@link #acquire()} allows the caller.
	 */
	enum Permit {

		/** Claim as usual. */
		CLAIM,

		/** Probe the broker and report the outcome. */
		PROBE,

		/** Do neither; wait. */
		WAIT

	}

	private final int failureThreshold;

	private final Duration coolDown;

	private final Clock clock;

	private final Consumer<CircuitState> onChange;

	private CircuitState state = CircuitState.CLOSED;

	private int consecutiveFailures;

	private Instant openedAt = Instant.MIN;

	/** When the last failure was recorded; guarded by this. */
	private @Nullable Instant lastFailureAt;

	/**
	 * Creates a closed breaker.
	 * @param failureThreshold consecutive broker failures that open it, at least 1
	 * @param coolDown how long it stays open before a probe, positive
	 * @param clock the clock
	 * @param onChange called once per state change, outside any lock
	 */
	public CircuitBreaker(int failureThreshold, Duration coolDown, Clock clock, Consumer<CircuitState> onChange) {
		if (failureThreshold < 1) {
			throw new IllegalArgumentException("failureThreshold must be at least 1, was " + failureThreshold);
		}
		if (coolDown.isNegative() || coolDown.isZero()) {
			throw new IllegalArgumentException("coolDown must be positive, was " + coolDown);
		}
		this.failureThreshold = failureThreshold;
		this.coolDown = coolDown;
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.onChange = Objects.requireNonNull(onChange, "onChange must not be null");
	}

	/**
	 * Returns the current state.
	 * @return the state
	 */
	public synchronized CircuitState state() {
		return this.state;
	}

	/**
	 * Returns how long until an open breaker allows a probe.
	 * @return the remaining cool-down, zero when none
	 */
	synchronized Duration remainingCoolDown() {
		if (this.state != CircuitState.OPEN) {
			return Duration.ZERO;
		}
		Duration left = Duration.between(this.clock.instant(), this.openedAt.plus(this.coolDown));
		return left.isNegative() ? Duration.ZERO : left;
	}

	Permit acquire() {
		CircuitState changed = null;
		Permit permit;
		synchronized (this) {
			switch (this.state) {
				case CLOSED -> permit = Permit.CLAIM;
				case HALF_OPEN -> permit = Permit.WAIT;
				default -> {
					if (this.clock.instant().isBefore(this.openedAt.plus(this.coolDown))) {
						permit = Permit.WAIT;
					}
					else {
						this.state = CircuitState.HALF_OPEN;
						changed = CircuitState.HALF_OPEN;
						permit = Permit.PROBE;
					}
				}
			}
		}
		notifyChange(changed);
		return permit;
	}

	/**
	 * Records that the broker answered just now; closes the breaker.
	 */
	public void recordSuccess() {
		recordSuccess(this.clock.instant());
	}

	/**
	 * Records that the broker answered at a given time; closes the breaker, unless a failure was
	 * recorded since: a confirm that arrived before the connection was lost, recorded after it,
	 * says nothing of the broker now.
	 * @param answeredAt when the broker answered
	 */
	public void recordSuccess(Instant answeredAt) {
		CircuitState changed = null;
		synchronized (this) {
			if (this.lastFailureAt != null && answeredAt.isBefore(this.lastFailureAt)) {
				return;
			}
			this.consecutiveFailures = 0;
			if (this.state != CircuitState.CLOSED) {
				this.state = CircuitState.CLOSED;
				changed = CircuitState.CLOSED;
			}
		}
		notifyChange(changed);
	}

	/**
	 * Records that the broker could not be reached or dropped the connection.
	 */
	public void recordFailure() {
		CircuitState changed = null;
		synchronized (this) {
			this.consecutiveFailures++;
			this.lastFailureAt = this.clock.instant();
			if (this.state == CircuitState.HALF_OPEN
					|| (this.state == CircuitState.CLOSED && this.consecutiveFailures >= this.failureThreshold)) {
				this.state = CircuitState.OPEN;
				this.openedAt = this.clock.instant();
				changed = CircuitState.OPEN;
			}
		}
		notifyChange(changed);
	}

	private void notifyChange(CircuitState changed) {
		if (changed != null) {
			this.onChange.accept(changed);
		}
	}

}
