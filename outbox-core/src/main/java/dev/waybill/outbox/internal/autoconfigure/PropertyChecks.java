package dev.waybill.outbox.internal.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.outbox.RetryPolicy;

/**
 * The rules bound {@code waybill.*} values are checked against, each failing with a message that
 * names the property, its value, the rule and the fix.
 */
public final class PropertyChecks {

	private PropertyChecks() {
	}

	/**
	 * Checks that a duration is positive.
	 * @param property the property's full name
	 * @param value its value
	 * @throws InvalidConfigurationPropertyValueException when it is missing, zero or negative
	 */
	public static void positive(String property, @Nullable Duration value) {
		check(property, value, value != null && !value.isNegative() && !value.isZero(), "a positive duration such as 1s");
	}

	/**
	 * Checks a value against a rule.
	 * @param property the property's full name
	 * @param value its value
	 * @param valid whether it follows the rule
	 * @param rule what the value must be, e.g. {@code at least 1}
	 * @throws InvalidConfigurationPropertyValueException when it does not follow the rule
	 */
	public static void check(String property, @Nullable Object value, boolean valid, String rule) {
		if (!valid) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The value must be " + rule + ". Set " + property + " accordingly.");
		}
	}

	/**
	 * Builds a retry policy from the properties under {@code prefix}, checking each against its rule.
	 * Shared by every Waybill module with {@code <prefix>.strategy/interval/rate/max-delay/max-attempts/jitter}.
	 * @param prefix the properties' prefix, e.g. {@code waybill.outbox.retry}
	 * @param strategy how the wait grows
	 * @param interval the first wait
	 * @param rate the exponential growth factor
	 * @param maxDelay the longest wait
	 * @param maxAttempts attempts before giving up
	 * @param jitter the randomized fraction of each wait
	 * @return the policy
	 * @throws InvalidConfigurationPropertyValueException naming the first invalid property
	 */
	public static RetryPolicy retryPolicy(String prefix, RetryPolicy.Strategy strategy, Duration interval, double rate,
			Duration maxDelay, int maxAttempts, double jitter) {
		positive(prefix + ".interval", interval);
		check(prefix + ".rate", rate, rate >= 1, "at least 1");
		check(prefix + ".max-delay", maxDelay, maxDelay != null && maxDelay.compareTo(interval) >= 0,
				"at least " + prefix + ".interval (" + interval + ")");
		check(prefix + ".max-attempts", maxAttempts, maxAttempts >= 1, "at least 1");
		check(prefix + ".jitter", jitter, jitter >= 0 && jitter <= 1, "between 0 and 1");
		return new RetryPolicy(strategy, interval, rate, maxDelay, maxAttempts, jitter);
	}

}
