package dev.waybill.outbox.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.internal.autoconfigure.PropertyChecks;

/**
 * The backoff settings every Waybill retry group shares ({@code strategy}, {@code interval},
 * {@code rate}, {@code max-delay}, {@code max-attempts}, {@code jitter}): the relay's
 * {@code waybill.outbox.retry} and the inbox's {@code waybill.inbox.retry} are this type, each
 * with its own default number of attempts.
 *
 * @since 0.1
 */
public class RetrySettings {

	/**
	 * How the wait grows: exponential (interval * rate^n), linear (interval * (n + 1)) or fixed.
	 */
	private RetryPolicy.Strategy strategy = RetryPolicy.Strategy.EXPONENTIAL;

	/**
	 * Wait before the first retry.
	 */
	private Duration interval = Duration.ofSeconds(1);

	/**
	 * Growth factor of the exponential strategy.
	 */
	private double rate = 2;

	/**
	 * Longest wait between attempts.
	 */
	private Duration maxDelay = Duration.ofMinutes(5);

	/**
	 * Attempts before giving up.
	 */
	private int maxAttempts;

	/**
	 * Fraction of each wait that is randomized (0.2 spreads it over plus or minus 20%).
	 */
	private double jitter = 0.2;

	/**
	 * Creates settings with the documented defaults.
	 * @param maxAttempts the default number of attempts
	 */
	protected RetrySettings(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public RetryPolicy.Strategy getStrategy() {
		return this.strategy;
	}

	public void setStrategy(RetryPolicy.Strategy strategy) {
		this.strategy = strategy;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

	public double getRate() {
		return this.rate;
	}

	public void setRate(double rate) {
		this.rate = rate;
	}

	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public double getJitter() {
		return this.jitter;
	}

	public void setJitter(double jitter) {
		this.jitter = jitter;
	}

	/**
	 * Builds the retry policy, checking each setting against its rule.
	 * @param prefix the settings' prefix, named in errors, e.g. {@code waybill.outbox.retry}
	 * @return the policy
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	public RetryPolicy toRetryPolicy(String prefix) {
		return PropertyChecks.retryPolicy(prefix, this.strategy, this.interval, this.rate, this.maxDelay,
				this.maxAttempts, this.jitter);
	}

}
