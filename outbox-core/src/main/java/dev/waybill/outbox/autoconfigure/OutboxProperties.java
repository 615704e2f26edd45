package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import dev.waybill.outbox.internal.autoconfigure.PropertyChecks;

/**
 * Writing to the outbox and relaying it, under {@code waybill.outbox.*}.
 *
 * @since 0.1
 */
public class OutboxProperties {

	/**
	 * Largest serialized message body accepted by publish; larger ones fail inside the business
	 * transaction.
	 */
	private DataSize maxMessageBytes = DataSize.ofMegabytes(1);

	/**
	 * Most messages that may wait for delivery before publish fails fast with
	 * OutboxFullException; 0 for no limit. Checked against the figure the relay reads every
	 * poll interval, so it is enforced where a relay runs.
	 */
	private long maxPending = 0;

	@NestedConfigurationProperty
	private final RelayProperties relay = new RelayProperties();

	private final Retry retry = new Retry();

	@NestedConfigurationProperty
	private final CircuitBreakerProperties circuitBreaker = new CircuitBreakerProperties();

	public DataSize getMaxMessageBytes() {
		return this.maxMessageBytes;
	}

	public void setMaxMessageBytes(DataSize maxMessageBytes) {
		this.maxMessageBytes = maxMessageBytes;
	}

	public long getMaxPending() {
		return this.maxPending;
	}

	public void setMaxPending(long maxPending) {
		this.maxPending = maxPending;
	}

	public RelayProperties getRelay() {
		return this.relay;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public CircuitBreakerProperties getCircuitBreaker() {
		return this.circuitBreaker;
	}

	/**
	 * Returns the body size limit in bytes.
	 * @return the limit
	 * @throws InvalidConfigurationPropertyValueException when it is not positive
	 */
	public long maxMessageBytesChecked() {
		if (this.maxMessageBytes == null || this.maxMessageBytes.toBytes() < 1) {
			throw new InvalidConfigurationPropertyValueException("waybill.outbox.max-message-bytes",
					this.maxMessageBytes, "The limit must be at least 1B. Set it to a size such as 1MB.");
		}
		return this.maxMessageBytes.toBytes();
	}

	/**
	 * Returns the back-pressure limit.
	 * @return the limit, 0 for none
	 * @throws InvalidConfigurationPropertyValueException when it is negative
	 */
	public long maxPendingChecked() {
		PropertyChecks.check("waybill.outbox.max-pending", this.maxPending, this.maxPending >= 0,
				"at least 0 (0 means no limit)");
		return this.maxPending;
	}

	/**
	 * Backoff between delivery attempts that failed because of the message; after
	 * {@code max-attempts} (default 10) a scope is dead, kept with its last error until redriven.
	 *
	 * @since 0.1
	 */
	public static class Retry extends RetrySettings {

		/**
		 * Creates the settings with their defaults.
		 */
		public Retry() {
			super(10);
		}

	}

}
