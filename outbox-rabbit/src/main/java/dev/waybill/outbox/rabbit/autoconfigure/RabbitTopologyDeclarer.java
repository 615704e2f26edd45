package dev.waybill.outbox.rabbit.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.spi.TransportException;

/**
 * Connects to RabbitMQ at start-up (when the transport is Waybill's RabbitMQ one) and declares the
 * transport's {@link RabbitTransport#declaredTopology() topology}, before the relay and the
 * consumers start. When the broker cannot be reached it logs a warning and carries on: the relay
 * waits for it, the transport declares the topology before its first publication, and the receive
 * endpoint on every connection. A broker that refuses the connection (credentials, virtual host)
 * or a declaration fails start-up.
 */
final class RabbitTopologyDeclarer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RabbitTopologyDeclarer.class);

	private final @Nullable RabbitTransport transport;

	private volatile boolean running;

	RabbitTopologyDeclarer(@Nullable RabbitTransport transport) {
		this.transport = transport;
	}

	@Override
	public void start() {
		this.running = true;
		RabbitTransport transport = this.transport;
		if (transport == null) {
			return;
		}
		try {
			// A refused connection (credentials, virtual host) fails start-up here, also in a
			// service that only publishes: the relay would otherwise wait for it for ever.
			transport.checkConnection();
		}
		catch (TransportException ex) {
			logger.warn("Waybill could not reach RabbitMQ yet (" + ex.getMessage()
					+ "); the relay publishes once it is reachable");
			return;
		}
		if (transport.declaredTopology().isEmpty()) {
			return;
		}
		try {
			transport.declareTopology();
			logger.info("Waybill declared " + transport.declaredTopology());
		}
		catch (TransportException ex) {
			if (ex.kind() == TransportException.Kind.UNAVAILABLE) {
				logger.warn("Waybill could not declare its RabbitMQ topology yet (" + ex.getMessage()
						+ "); it declares it before the first publication and when its consumers connect");
				return;
			}
			throw new IllegalStateException("RabbitMQ refused Waybill's declared topology (waybill.rabbit.topology "
					+ "and RabbitTopology beans): " + ex.getMessage(), ex);
		}
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return WaybillPhases.RELAY - 2048; // before the relay's notification listener and the relay
	}

}
