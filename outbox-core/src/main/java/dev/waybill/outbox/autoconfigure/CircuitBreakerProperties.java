package dev.waybill.outbox.autoconfigure;

import java.time.Duration;

/**
 * The breaker that pauses the relay while the broker is unreachable, under
 * {@code waybill.outbox.circuit-breaker.*}.
 *
 * @since 0.1
 */
public class CircuitBreakerProperties {

	/**
	 * Consecutive broker connection failures that open the breaker and pause claims.
	 */
	private int failureThreshold = 3;

	/**
	 * How long the open breaker waits before probing the broker.
	 */
	private Duration coolDown = Duration.ofSeconds(5);

	public int getFailureThreshold() {
		return this.failureThreshold;
	}

	public void setFailureThreshold(int failureThreshold) {
		this.failureThreshold = failureThreshold;
	}

	public Duration getCoolDown() {
		return this.coolDown;
	}

	public void setCoolDown(Duration coolDown) {
		this.coolDown = coolDown;
	}

}
