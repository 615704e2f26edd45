package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.Objects;

import dev.waybill.outbox.RetryPolicy;

/**
 * How a {@link Relay} runs.
 *
 * @param workers worker threads, each with its own broker channel, at least 1
 * @param batchSize the most scopes one claim takes, at least 1
 * @param leaseDuration how long a claim holds before another relay may take the scope over, unless
 * the relay renews it (it does, every third of it, while it still works on the scope)
 * @param pollInterval the fallback check for due scopes when no wake-up arrives
 * @param shutdownTimeout how long stopping waits for outstanding confirms
 * @param retry backoff and the attempt limit
 * @param failureThreshold consecutive broker failures that open the circuit breaker
 * @param coolDown how long the open breaker waits before probing the broker
 * @since 0.1
 */
public record RelaySettings(int workers, int batchSize, Duration leaseDuration, Duration pollInterval,
		Duration shutdownTimeout, RetryPolicy retry, int failureThreshold, Duration coolDown) {

	/**
	 * Checks the components.
	 * @throws IllegalArgumentException naming the component and its rule
	 */
	public RelaySettings {
		positive("workers", workers);
		positive("batchSize", batchSize);
		positive("failureThreshold", failureThreshold);
		positive("leaseDuration", leaseDuration);
		positive("pollInterval", pollInterval);
		positive("shutdownTimeout", shutdownTimeout);
		positive("coolDown", coolDown);
		Objects.requireNonNull(retry, "retry must not be null");
	}

	/**
	 * The defaults: 2 workers, batches of 100, 12s leases, 1s poll, 10s shutdown, default retry,
	 * breaker opening after 3 failures with a 5s cool-down.
	 * @return the default settings
	 */
	public static RelaySettings defaults() {
		return new RelaySettings(2, 100, Duration.ofSeconds(12), Duration.ofSeconds(1), Duration.ofSeconds(10),
				RetryPolicy.defaults(), 3, Duration.ofSeconds(5));
	}

	/**
	 * Returns a copy with other retry rules.
	 * @param retry the retry policy
	 * @return the new settings
	 */
	public RelaySettings withRetry(RetryPolicy retry) {
		return new RelaySettings(this.workers, this.batchSize, this.leaseDuration, this.pollInterval,
				this.shutdownTimeout, retry, this.failureThreshold, this.coolDown);
	}

	private static void positive(String name, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(name + " must be at least 1, was " + value);
		}
	}

	private static void positive(String name, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, was " + value);
		}
	}

}
