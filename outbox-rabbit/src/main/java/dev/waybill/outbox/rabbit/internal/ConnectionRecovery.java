package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * Connects the receive endpoint and keeps it connected, on the connector thread: an attempt opens a
 * connection, declares the whole topology and consumes every queue (the partitions of an endpoint
 * that has them: its share, see {@link PartitionBalancer}); a failed one is tried again
 * after a back-off, and a lost connection is replaced by a new one, so a broker that lost its
 * definitions (a fresh node, a reset) gets them back.
 *
 * @since 0.1
 */
final class ConnectionRecovery {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final RabbitTransport transport;

	private final ConnectionFactory connectionFactory;

	private final RabbitTopology topology;

	private final EndpointStatus status;

	private final EndpointExecutors executors;

	private final QueueDeclarer declarer;

	private final QueueSubscriber subscriber;

	private final PartitionBalancer balancer;

	// Confined to the connector thread, once started:

	private int failedAttempts;

	private @Nullable String lastFailure;

	ConnectionRecovery(RabbitTransport transport, ConnectionFactory connectionFactory, RabbitTopology topology,
			EndpointStatus status, EndpointExecutors executors, QueueDeclarer declarer, QueueSubscriber subscriber,
			PartitionBalancer balancer) {
		this.transport = transport;
		this.connectionFactory = connectionFactory;
		this.topology = topology;
		this.status = status;
		this.executors = executors;
		this.declarer = declarer;
		this.subscriber = subscriber;
		this.balancer = balancer;
	}

	/**
	 * One attempt, on the connector thread: connects, declares every consumer's topology and
	 * consumes; on any failure closes what it opened.
	 * @return the failure, or {@literal null} when consuming
	 */
	@Nullable Exception connect() {
		Connection created = null;
		try {
			created = this.transport.newConnection(this.connectionFactory, this.executors.consumers(),
					RabbitReceiveEndpoint.CONNECTION_NAME);
			this.topology.declare(created);
			for (ReceiveEndpoint endpoint : this.status.endpoints()) {
				this.declarer.declare(created, endpoint);
			}
			for (ReceiveEndpoint endpoint : this.status.endpoints()) {
				// an endpoint's partitions are consumed as the instances share them, below
				for (int i = 0; i < QueueSubscriber.channels(endpoint) && endpoint.partitions() == 1; i++) {
					this.subscriber.consume(created, endpoint);
				}
			}
			if (!this.status.running()) {
				throw new IllegalStateException("stopped while connecting");
			}
			this.status.queueLosses().clear();
			this.status.connection(created);
			this.balancer.joined(created);
			Connection session = created;
			// called at once when the connection closed already
			created.addShutdownListener((cause) -> {
				if (!cause.isInitiatedByApplication()) {
					lost(session, BrokerErrors.describe(cause));
				}
			});
			return null;
		}
		catch (IOException | TimeoutException | RuntimeException ex) {
			if (created != null) {
				created.abort(this.connectionFactory.getConnectionTimeout());
			}
			return ex;
		}
	}

	/** The broker could not be reached at start: the endpoint starts anyway and keeps trying. */
	void unreachableAtStart(Exception failure) {
		this.failedAttempts = 1;
		this.lastFailure = BrokerErrors.describe(failure);
		this.status.notConsuming(this.lastFailure);
		logger.warn("RabbitMQ at " + this.transport + " is unreachable (" + this.lastFailure + "); Waybill's consumers of "
				+ this.status.queues() + " will start when it is, trying again in the background");
		this.executors.schedule(this::reconnect, this.executors.backoff(this.failedAttempts));
	}

	/**
	 * Another attempt after a failed one, on the connector thread; schedules the next one on
	 * failure.
	 */
	private void reconnect() {
		if (!this.status.running() || this.status.connection() != null) {
			return;
		}
		Exception failure = connect();
		if (failure == null) {
			String after = (this.failedAttempts == 0) ? ""
					: ", after " + this.failedAttempts + " failed attempt" + ((this.failedAttempts == 1) ? "" : "s");
			logger.info("Waybill consuming " + this.status.queues() + " from RabbitMQ at " + this.transport + after);
			this.failedAttempts = 0;
			this.lastFailure = null;
			return;
		}
		this.failedAttempts++;
		long delay = this.executors.backoff(this.failedAttempts);
		String reason = BrokerErrors.describe(failure);
		String text = "Waybill could not resume consuming " + this.status.queues() + " from RabbitMQ at "
				+ this.transport + ": " + reason + "; trying again in " + delay + " ms";
		if (reason.equals(this.lastFailure)) {
			logger.debug(text);
		}
		else if (ConsumerRefusal.refused(failure)) {
			logger.error(text); // an operator must act (credentials, permissions, queue arguments)
		}
		else {
			logger.warn(text);
		}
		this.lastFailure = reason;
		this.status.notConsuming(reason);
		this.executors.schedule(this::reconnect, delay);
	}

	/**
	 * Reacts to the loss of a consuming connection, on any thread: closes that connection, unless
	 * it was replaced already, and connects again.
	 */
	private void lost(Connection session, String what) {
		this.executors.schedule(() -> {
			if (!this.status.running() || this.status.connection() != session) {
				return;
			}
			this.status.connection(null);
			this.status.notConsuming(what);
			logger.warn("Waybill stopped consuming " + this.status.queues() + " from RabbitMQ at " + this.transport
					+ " (" + what + "); it declares its topology again and resumes once the broker can be reached");
			session.abort(this.connectionFactory.getConnectionTimeout());
			this.failedAttempts = 0;
			this.lastFailure = null;
			this.executors.schedule(this::reconnect, this.executors.backoff(this.failedAttempts));
		}, 0);
	}

}
