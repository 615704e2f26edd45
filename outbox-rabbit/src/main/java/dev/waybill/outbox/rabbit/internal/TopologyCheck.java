package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;

import com.rabbitmq.client.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * Declares the topology and each consumed queue with its bindings again on the live connection, on
 * the connector thread, every interval: what an operator deleted (an exchange, and its bindings
 * with it) comes back without a new connection. A queue being resumed is left to its resumption.
 *
 * @since 0.1
 */
final class TopologyCheck {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final RabbitTransport transport;

	private final RabbitTopology topology;

	private final Duration interval;

	private final EndpointStatus status;

	private final EndpointExecutors executors;

	private final QueueDeclarer declarer;

	/** Confined to the connector thread. */
	private @Nullable String lastFailure;

	TopologyCheck(RabbitTransport transport, RabbitTopology topology, Duration interval, EndpointStatus status,
			EndpointExecutors executors, QueueDeclarer declarer) {
		this.transport = transport;
		this.topology = topology;
		this.interval = interval;
		this.status = status;
		this.executors = executors;
		this.declarer = declarer;
	}

	/** Schedules the next check; zero checks never. */
	void schedule() {
		if (!this.interval.isZero()) {
			this.executors.schedule(this::check, this.interval.toMillis());
		}
	}

	private void check() {
		Connection session = this.status.connection();
		if (session == null || !session.isOpen()) {
			schedule();
			return;
		}
		try {
			this.topology.declare(session);
			for (ReceiveEndpoint endpoint : this.status.endpoints()) {
				if (!this.status.queueLosses().containsKey(endpoint.queue())) {
					this.declarer.declare(session, endpoint);
				}
			}
			if (this.lastFailure != null) {
				logger.info("Waybill declared its topology on RabbitMQ at " + this.transport + " again");
				this.lastFailure = null;
			}
		}
		catch (IOException | RuntimeException ex) {
			if (session.isOpen()) { // else the connection's loss renews it all
				String reason = BrokerErrors.describe(ex);
				if (!reason.equals(this.lastFailure)) {
					logger.warn("Waybill could not declare its topology on RabbitMQ at " + this.transport
							+ " again: " + reason + "; its consumers go on, and it tries again in " + this.interval);
				}
				this.lastFailure = reason;
			}
		}
		finally {
			schedule();
		}
	}

}
