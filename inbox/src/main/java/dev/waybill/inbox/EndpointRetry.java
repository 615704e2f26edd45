package dev.waybill.inbox;

import java.util.Objects;

import dev.waybill.outbox.RetryPolicy;

/**
 * The retry policy of one receive endpoint, replacing the inbox processor's for its handlers.
 *
 * @param policy the backoff between redeliveries and the deliveries before the error queue
 * @param immediate in-process retries of a failed handler before a redelivery is scheduled, at
 * least 0
 * @since 0.1
 */
public record EndpointRetry(RetryPolicy policy, int immediate) {

	/**
	 * Checks the values.
	 * @param policy the policy
	 * @param immediate at least 0
	 */
	public EndpointRetry {
		Objects.requireNonNull(policy, "policy must not be null");
		if (immediate < 0) {
			throw new IllegalArgumentException("immediate must be at least 0, was " + immediate);
		}
	}

}
