package dev.waybill.outbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * When to retry a failed delivery and when to give up. The wait before retry {@code n} (0 for
 * the first retry) is, for the exponential strategy, {@code min(maxDelay, interval * rate^n)};
 * for linear, {@code min(maxDelay, interval * (n + 1))}; for fixed, {@code interval}. Jitter
 * then spreads it uniformly over {@code ±jitter} of itself, never past {@code maxDelay}, so
 * scopes that failed together do not retry together.
 *
 * @param strategy how the wait grows
 * @param interval the first wait
 * @param rate the growth factor of the exponential strategy, at least 1
 * @param maxDelay the longest wait
 * @param maxAttempts delivery attempts before a scope is dead, at least 1
 * @param jitter the fraction of each wait that is randomized, 0 to 1
 * @since 0.1
 */
public record RetryPolicy(Strategy strategy, Duration interval, double rate, Duration maxDelay, int maxAttempts,
		double jitter) {

	/**
	 * How the wait between attempts grows.
	 */
	public enum Strategy {

		/** {@code interval * rate^n}. */
		EXPONENTIAL,

		/** {@code interval * (n + 1)}. */
		LINEAR,

		/** {@code interval}. */
		FIXED

	}

	/**
	 * Checks the components.
	 * @throws IllegalArgumentException naming the component and its rule
	 */
	public RetryPolicy {
		Objects.requireNonNull(strategy, "strategy must not be null");
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("interval must be positive, was " + interval);
		}
		if (!(rate >= 1)) {
			throw new IllegalArgumentException("rate must be at least 1, was " + rate);
		}
		if (maxDelay.compareTo(interval) < 0) {
			throw new IllegalArgumentException("maxDelay must be at least interval (" + interval + "), was " + maxDelay);
		}
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
		}
		if (!(jitter >= 0 && jitter <= 1)) {
			throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
		}
	}

	/**
	 * The defaults: exponential from 1s at rate 2, at most 5 minutes apart, 10 attempts, 20% jitter.
	 * @return the default policy
	 */
	public static RetryPolicy defaults() {
		return new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofSeconds(1), 2, Duration.ofMinutes(5), 10, 0.2);
	}

	/**
	 * Tells whether a scope that has been attempted {@code attempts} times must be given up.
	 * @param attempts the attempts made, the failed one included
	 * @return whether no attempt is left
	 */
	public boolean exhausted(int attempts) {
		return attempts >= this.maxAttempts;
	}

	/**
	 * Returns the wait before retry {@code retry}, without jitter.
	 * @param retry the retry number, 0 for the first retry
	 * @return the wait
	 */
	public Duration baseDelay(int retry) {
		int n = Math.max(0, retry);
		double millis = switch (this.strategy) {
			case EXPONENTIAL -> this.interval.toMillis() * Math.pow(this.rate, n);
			case LINEAR -> this.interval.toMillis() * (n + 1.0);
			case FIXED -> this.interval.toMillis();
		};
		return Duration.ofMillis((long) Math.min(millis, this.maxDelay.toMillis()));
	}

	/**
	 * Returns the jittered wait before retry {@code retry}.
	 * @param retry the retry number, 0 for the first retry
	 * @return the wait
	 */
	public Duration delay(int retry) {
		return delay(retry, () -> ThreadLocalRandom.current().nextDouble());
	}

	Duration delay(int retry, DoubleSupplier random) {
		long base = baseDelay(retry).toMillis();
		double factor = 1 - this.jitter + 2 * this.jitter * random.getAsDouble();
		return Duration.ofMillis(Math.min((long) (base * factor), this.maxDelay.toMillis()));
	}

}
