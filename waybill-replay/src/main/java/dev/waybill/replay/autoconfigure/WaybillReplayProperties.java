package dev.waybill.replay.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of replay under {@code waybill.replay.*}.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillReplayProperties.PREFIX)
public class WaybillReplayProperties {

	/** The prefix of the replay properties. */
	public static final String PREFIX = "waybill.replay";

	/**
	 * Whether this instance runs the replay worker that writes the batches of running jobs. The Replays API works either way.
	 */
	private boolean enabled = true;

	/**
	 * Longest sleep of the replay worker between two looks at the job table.
	 */
	private Duration pollInterval = Duration.ofSeconds(1);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

}
