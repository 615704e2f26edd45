package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;

/**
 * What Waybill sets on every client connection factory it connects with, whoever configured the
 * rest of it (Spring Boot, a test): the timeouts, the automatic recovery and the frame size.
 *
 * @param connectionTimeout how long to wait for the broker to accept a connection, finish the
 * handshake, or answer a channel operation (open, declare, close)
 * @param recoveryInterval how long to wait between attempts to recover a lost connection
 * @param frameMax the largest frame to ask the broker for
 * @since 0.1
 */
record ClientSettings(Duration connectionTimeout, Duration recoveryInterval, int frameMax) {

	/** AMQP's smallest {@code frame_max}. */
	static final int MIN_FRAME_MAX = 4096;

	/** 5 s connection timeout, 5 s between recovery attempts, RabbitMQ's default frame max. */
	static final ClientSettings DEFAULTS = new ClientSettings(Duration.ofSeconds(5), Duration.ofSeconds(5),
			RabbitTransport.DEFAULT_FRAME_MAX);

	ClientSettings {
		Checks.positive(recoveryInterval, "recoveryInterval");
		Checks.positive(connectionTimeout, "connectionTimeout");
		if (connectionTimeout.toMillis() < 1 || connectionTimeout.toMillis() > Integer.MAX_VALUE) {
			throw new IllegalArgumentException(
					"connectionTimeout must be between 1ms and " + Integer.MAX_VALUE + "ms, was " + connectionTimeout);
		}
		if (frameMax < MIN_FRAME_MAX) {
			throw new IllegalArgumentException("frameMax must be at least " + MIN_FRAME_MAX + " bytes, was " + frameMax);
		}
	}

	/**
	 * Sets these settings, automatic recovery and Waybill's exception handler on a factory.
	 */
	void applyTo(ConnectionFactory factory) {
		int timeout = (int) this.connectionTimeout.toMillis();
		factory.setConnectionTimeout(timeout);
		factory.setHandshakeTimeout(timeout);
		factory.setChannelRpcTimeout(timeout);
		factory.setAutomaticRecoveryEnabled(true);
		factory.setTopologyRecoveryEnabled(true);
		// Exchanges are declared on short-lived channels, closed by the time of a recovery, so
		// the client cannot replay them; they are declared again on their next use instead.
		factory.setTopologyRecoveryFilter(new TopologyRecoveryFilter() {

			@Override
			public boolean filterExchange(RecordedExchange exchange) {
				return false;
			}

		});
		factory.setNetworkRecoveryInterval(this.recoveryInterval.toMillis());
		factory.setRequestedFrameMax(this.frameMax);
		factory.setExceptionHandler(new ClientExceptionHandler());
	}

}
