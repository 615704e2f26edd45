package dev.waybill.outbox.rabbit.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of Waybill's RabbitMQ transport under {@code waybill.rabbit.*}. The connection
 * (addresses, credentials, virtual host, TLS, connection timeout) is Spring Boot's:
 * {@code spring.rabbitmq.*} or a service connection.
 *
 * @since 0.1
 */
@ConfigurationProperties(WaybillRabbitProperties.PREFIX)
public class WaybillRabbitProperties {

	/** The prefix of every RabbitMQ transport property. */
	public static final String PREFIX = "waybill.rabbit";

	/**
	 * How long a published message waits for its publisher confirm before the attempt fails;
	 * must be shorter than waybill.outbox.relay.lease-duration.
	 */
	private Duration confirmTimeout = Duration.ofSeconds(10);

	/**
	 * Most messages a relay channel may have waiting for publisher confirms; publishing blocks
	 * while the window is full.
	 */
	private int maxOutstandingConfirms = 1000;

	/**
	 * Type of the exchanges declared for message types: fanout, topic, direct or headers.
	 */
	private String exchangeType = "fanout";

	/**
	 * Largest message body the broker accepts (its max_message_size); larger messages are
	 * dead-lettered without being sent.
	 */
	private DataSize maxBodySize = DataSize.ofMegabytes(128);

	/**
	 * Largest frame to ask the broker for; the connection uses the smaller of this and the
	 * broker's frame_max. A message's properties and headers must fit in one frame, so publish
	 * refuses headers that would not. Raise it only for a broker configured with a larger
	 * frame_max.
	 */
	private DataSize frameMax = DataSize.ofBytes(131072);

	/**
	 * How long to wait between attempts to recover a lost connection.
	 */
	private Duration recoveryInterval = Duration.ofSeconds(5);

	/**
	 * How often a consuming service declares its queues with their bindings, and the declared
	 * topology, again on its live connection: deleting an exchange deletes its bindings, the
	 * consumers' too, and they come back within this interval instead of at the next reconnect.
	 * 0 declares them only when connecting.
	 */
	private Duration topologyCheckInterval = Duration.ofSeconds(30);

	/**
	 * Declare the destination exchange of a send on first use (with exchange-type), as for a
	 * publish, instead of requiring it to exist.
	 */
	private boolean declareSendDestinations = false;

	private final TopologyProperties topology = new TopologyProperties();

	public boolean isDeclareSendDestinations() {
		return this.declareSendDestinations;
	}

	public void setDeclareSendDestinations(boolean declareSendDestinations) {
		this.declareSendDestinations = declareSendDestinations;
	}

	public TopologyProperties getTopology() {
		return this.topology;
	}

	public Duration getConfirmTimeout() {
		return this.confirmTimeout;
	}

	public void setConfirmTimeout(Duration confirmTimeout) {
		this.confirmTimeout = confirmTimeout;
	}

	public int getMaxOutstandingConfirms() {
		return this.maxOutstandingConfirms;
	}

	public void setMaxOutstandingConfirms(int maxOutstandingConfirms) {
		this.maxOutstandingConfirms = maxOutstandingConfirms;
	}

	public String getExchangeType() {
		return this.exchangeType;
	}

	public void setExchangeType(String exchangeType) {
		this.exchangeType = exchangeType;
	}

	public DataSize getFrameMax() {
		return this.frameMax;
	}

	public void setFrameMax(DataSize frameMax) {
		this.frameMax = frameMax;
	}

	public DataSize getMaxBodySize() {
		return this.maxBodySize;
	}

	public void setMaxBodySize(DataSize maxBodySize) {
		this.maxBodySize = maxBodySize;
	}

	public Duration getTopologyCheckInterval() {
		return this.topologyCheckInterval;
	}

	public void setTopologyCheckInterval(Duration topologyCheckInterval) {
		this.topologyCheckInterval = topologyCheckInterval;
	}

	public Duration getRecoveryInterval() {
		return this.recoveryInterval;
	}

	public void setRecoveryInterval(Duration recoveryInterval) {
		this.recoveryInterval = recoveryInterval;
	}

}
