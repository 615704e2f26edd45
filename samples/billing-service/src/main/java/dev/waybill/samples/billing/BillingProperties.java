package dev.waybill.samples.billing;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The billing service's own settings, under {@code billing.*}.
 *
 * @param firstAttemptFailureFraction the fraction of orders (0 to 1) whose first delivery fails on
 * purpose, so that retries are visible; which orders is decided by the order id, the same way
 * every time
 */
@ConfigurationProperties("billing")
public record BillingProperties(double firstAttemptFailureFraction) {

	/** The property that sets {@link #firstAttemptFailureFraction()}. */
	public static final String FAILURE_FRACTION_PROPERTY = "billing.first-attempt-failure-fraction";

	public BillingProperties {
		if (!(firstAttemptFailureFraction >= 0 && firstAttemptFailureFraction <= 1)) {
			throw new InvalidConfigurationPropertyValueException(FAILURE_FRACTION_PROPERTY, firstAttemptFailureFraction,
					"The value must be between 0 and 1, e.g. 0.1 to fail one order in ten on its first attempt.");
		}
	}

}
