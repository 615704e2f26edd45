package dev.waybill.outbox.internal.relay;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.OutageLogger;
import dev.waybill.kernel.SharedOutage;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;

/**
 * Logs the relay's broker outages as its circuit breaker reports them ({@link OutageLogger}), and
 * tells the listener. An outage logs one warning when the circuit opens, one a minute while it
 * lasts (each failed probe reopens the circuit, every cool-down) and an info line when it closes;
 * the probes log at debug.
 *
 * @since 0.1
 */
final class BrokerOutageLog implements OutageLogger.Wording<String> {

	// Under the relay's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Relay.class);

	private final String relayId;

	private final Duration coolDown;

	private final RelayListener listener;

	private final OutageLogger<String> outage = new OutageLogger<>(logger, this);

	private volatile String lastFailure = "unknown reason";

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
		switch (state) {
			case OPEN -> this.outage.failed(this.lastFailure);
			case HALF_OPEN -> logger.debug("Waybill relay " + this.relayId + ": probing the broker");
			case CLOSED -> {
				if (!this.outage.recovered(this.outage.now())) {
					logger.info("Waybill relay " + this.relayId + ": broker available again, circuit closed");
				}
			}
		}
		this.listener.circuitChanged(state);
	}

	@Override
	public String began(String failure) {
		return "Waybill relay " + this.relayId + ": broker unavailable (" + failure + "), circuit open; claims pause for "
				+ this.coolDown + " between probes and no delivery attempt is counted";
	}

	@Override
	public String still(String failure, SharedOutage.Failure told) {
		return "Waybill relay " + this.relayId + ": broker still unavailable after " + told.failingFor() + " (" + failure
				+ ")";
	}

	@Override
	public String again(String failure) {
		return "Waybill relay " + this.relayId + ": probe failed, circuit open again (" + failure + ")";
	}

	@Override
	public String ended(SharedOutage.Ended ended) {
		return "Waybill relay " + this.relayId + ": broker available again, circuit closed after " + ended.lasted()
				+ " open";
	}

}
