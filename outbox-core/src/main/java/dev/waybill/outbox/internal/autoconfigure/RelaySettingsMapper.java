package dev.waybill.outbox.internal.autoconfigure;

import static dev.waybill.outbox.internal.autoconfigure.PropertyChecks.check;
import static dev.waybill.outbox.internal.autoconfigure.PropertyChecks.positive;

import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.autoconfigure.CircuitBreakerProperties;
import dev.waybill.outbox.autoconfigure.OutboxProperties;
import dev.waybill.outbox.autoconfigure.RelayProperties;
import dev.waybill.outbox.internal.relay.RelaySettings;

/**
 * Turns the bound {@code waybill.outbox.*} properties into the relay's settings, checking each value
 * first.
 */
public final class RelaySettingsMapper {

	private RelaySettingsMapper() {
	}

	/**
	 * Returns the relay settings.
	 * @param outbox the bound {@code waybill.outbox.*} properties
	 * @return the settings
	 * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
	 * naming the first invalid property
	 */
	public static RelaySettings toRelaySettings(OutboxProperties outbox) {
		RelayProperties relay = outbox.getRelay();
		String prefix = "waybill.outbox.relay.";
		check(prefix + "workers", relay.getWorkers(), relay.getWorkers() >= 1, "at least 1");
		check(prefix + "batch-size", relay.getBatchSize(), relay.getBatchSize() >= 1, "at least 1");
		positive(prefix + "lease-duration", relay.getLeaseDuration());
		positive(prefix + "poll-interval", relay.getPollInterval());
		positive(prefix + "shutdown-timeout", relay.getShutdownTimeout());
		RetryPolicy policy = outbox.getRetry().toRetryPolicy("waybill.outbox.retry");
		CircuitBreakerProperties breaker = outbox.getCircuitBreaker();
		String breakerPrefix = "waybill.outbox.circuit-breaker.";
		check(breakerPrefix + "failure-threshold", breaker.getFailureThreshold(), breaker.getFailureThreshold() >= 1,
				"at least 1");
		positive(breakerPrefix + "cool-down", breaker.getCoolDown());
		return new RelaySettings(relay.getWorkers(), relay.getBatchSize(), relay.getLeaseDuration(),
				relay.getPollInterval(), relay.getShutdownTimeout(), policy, breaker.getFailureThreshold(),
				breaker.getCoolDown());
	}

}
