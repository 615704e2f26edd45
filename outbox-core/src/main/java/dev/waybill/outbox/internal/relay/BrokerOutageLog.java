package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;

/**
 * Logs the relay's broker outages as its circuit breaker reports them, and tells the listener.
 * An outage logs one warning when it starts, one a minute while it lasts (each failed probe
 * reopens the circuit, every cool-down) and an info line when it ends; the probes log at debug.
 *
 * @since 0.1
 */
final class BrokerOutageLog {

	// Under the relay's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Relay.class);

	/** How often a lasting broker outage is logged again at WARN. */
	static final Duration OUTAGE_WARNING_INTERVAL = Duration.ofMinutes(1);

	private final String relayId;

	private final Duration coolDown;

	private final RelayListener listener;

	private volatile String lastFailure = "unknown reason";

	/** When the current broker outage began ({@link System#nanoTime()}), or 0; guarded by the breaker's callbacks. */
	private volatile long outageSince;

	private volatile long outageWarnedAt;

	BrokerOutageLog(String relayId, Duration coolDown, RelayListener listener) {
		this.relayId = relayId;
		this.coolDown = coolDown;
		this.listener = listener;
	}

	/**
	 * Notes why the broker could not be used, for the log line of the circuit opening.
	 * @param reason the transport's description
	 */
	void brokerFailed(String reason) {
		this.lastFailure = reason;
	}

	String lastFailure() {
		return this.lastFailure;
	}

	void circuitChanged(CircuitState state) {
		long now = System.nanoTime();
		switch (state) {
			case OPEN -> {
				if (this.outageSince == 0) {
					this.outageSince = now;
					this.outageWarnedAt = now;
					logger.warn("Waybill relay " + this.relayId + ": broker unavailable (" + this.lastFailure
							+ "), circuit open; claims pause for " + this.coolDown
							+ " between probes and no delivery attempt is counted");
				}
				else if (now - this.outageWarnedAt >= OUTAGE_WARNING_INTERVAL.toNanos()) {
					this.outageWarnedAt = now;
					logger.warn("Waybill relay " + this.relayId + ": broker still unavailable after " + outage(now) + " ("
							+ this.lastFailure + ")");
				}
				else {
					logger.debug("Waybill relay " + this.relayId + ": probe failed, circuit open again (" + this.lastFailure + ")");
				}
			}
			case HALF_OPEN -> logger.debug("Waybill relay " + this.relayId + ": probing the broker");
			case CLOSED -> {
				logger.info("Waybill relay " + this.relayId + ": broker available again"
						+ ((this.outageSince != 0) ? ", circuit closed after " + outage(now) + " open" : ", circuit closed"));
				this.outageSince = 0;
			}
		}
		this.listener.circuitChanged(state);
	}

	private String outage(long now) {
		return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(now - this.outageSince)).toString();
	}

}
