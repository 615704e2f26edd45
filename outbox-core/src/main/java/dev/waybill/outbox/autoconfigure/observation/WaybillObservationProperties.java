package dev.waybill.outbox.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of Waybill's Micrometer Observations, under {@code waybill.observation}.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillObservationProperties.PREFIX)
public class WaybillObservationProperties {

	/** The prefix of these properties. */
	public static final String PREFIX = "waybill.observation";

	/** The property that turns Waybill's observations off. */
	public static final String ENABLED_PROPERTY = PREFIX + ".enabled";

	/**
	 * Whether Waybill observes its publishes, the relay's publishes and the inbox's handling with the
	 * application's ObservationRegistry (spans continuing the W3C trace context through the outbox,
	 * when Micrometer Tracing is set up). Without an ObservationRegistry bean nothing is observed.
	 */
	private boolean enabled = true;

	/**
	 * Returns whether Waybill's observations are on.
	 * @return whether they are on
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Turns Waybill's observations on or off.
	 * @param enabled whether they are on
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Returns the registry Waybill observes with: the application's when observations are on and it
	 * has one, else the no-op registry.
	 * @param registry the application's registry, or {@literal null}
	 * @return the registry to use
	 */
	public ObservationRegistry registry(@Nullable ObservationRegistry registry) {
		return (this.enabled && registry != null) ? registry : ObservationRegistry.NOOP;
	}

}
