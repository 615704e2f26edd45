package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Envelope;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.outbox.WaybillPhases;

/**
 * Feeds RabbitMQ deliveries to the inbox. It declares the {@linkplain ReceiveEndpointSettings#topology
 * declared topology}, then, for every receive endpoint (a queue and its consumers, one per message
 * type), declares the queue (durable, with the endpoint's arguments), binds it to the exchange of
 * each consumer's message type and to the endpoint's extra bindings, declares {@code <queue>_error}
 * ({@link QueueDeclarer}), and consumes with manual acknowledgements, the endpoint's prefetch and
 * one channel per unit of its concurrency, on a connection of its own ({@code waybill-consumer})
 * ({@link QueueSubscriber}). Each delivery goes to the consumer {@link ConsumerRegistry#dispatch}
 * picks by its message type ({@link InboxConsumer}).
 * <p>
 * Each delivery is acknowledged only after the inbox committed its outcome (processed, duplicate,
 * retry scheduled or faulted: retries and faults leave through the outbox). When the inbox cannot
 * reach the database the delivery is returned to the queue after a pause. When the database refuses
 * to record anything about a delivery ({@link UnrecordableDeliveryException}), the endpoint
 * publishes it unchanged to {@code <queue>_error} with the reason, waits for the broker's confirm
 * and then acknowledges it ({@link Settlement}, {@link BatchSettlement}).
 * <p>
 * The endpoint recovers on its own rather than through the client's topology recovery: when the
 * broker cannot be reached at {@link #start()} it starts anyway and keeps trying in the background;
 * when the connection is lost it opens a new one and declares the whole topology again before
 * consuming ({@link ConnectionRecovery}). When the broker closes one consume channel or cancels one
 * consumer, only that queue is declared again and consumed on a new channel of the same connection
 * ({@link QueueRecovery}). A delivery handled while its channel was lost cannot be acknowledged;
 * the broker delivers it again and the inbox recognises it as a duplicate.
 *
 * @since 0.1
 */
public final class RabbitReceiveEndpoint implements SmartLifecycle {

	/** The name of the consuming connection. */
	public static final String CONNECTION_NAME = "waybill-consumer";

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final RabbitTransport transport;

	private final ReceiveEndpointSettings settings;

	private final ConnectionFactory connectionFactory;

	private final EndpointStatus status;

	private final EndpointExecutors executors;

	private final QueueSubscriber subscriber;

	private final QueueRecovery queueRecovery;

	private final ConnectionRecovery recovery;

	private final TopologyCheck topologyCheck;

	private final ConsumerDrain drain;

	/**
	 * Creates an endpoint with the {@linkplain ReceiveEndpointSettings#DEFAULTS default settings}.
	 * @param transport the transport whose connection settings and exchange type to use
	 * @param processor handles each delivery
	 * @param endpoints the receive endpoints to consume, each of a queue of its own
	 */
	public RabbitReceiveEndpoint(RabbitTransport transport, DeliveryProcessor processor,
			List<ReceiveEndpoint> endpoints) {
		this(transport, processor, endpoints, ReceiveEndpointSettings.DEFAULTS);
	}

	/**
	 * Creates an endpoint.
	 * @param transport the transport whose connection settings and exchange type to use
	 * @param processor handles each delivery
	 * @param endpoints the receive endpoints to consume, each of a queue of its own
	 * @param settings how it runs
	 */
	public RabbitReceiveEndpoint(RabbitTransport transport, DeliveryProcessor processor,
			List<ReceiveEndpoint> endpoints, ReceiveEndpointSettings settings) {
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
		Objects.requireNonNull(processor, "processor must not be null");
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		endpoints.forEach(RabbitReceiveEndpoint::requireOrderedPartitions);
		ConsumerRegistry registry = ConsumerRegistry.ofEndpoints(endpoints);
		processor.describeQueues(registry);
		this.connectionFactory = ConsumingConnectionFactory.of(transport.connectionFactory(), transport.maxBodySize());
		this.status = new EndpointStatus(registry.receiveEndpoints());
		this.executors = new EndpointExecutors(this.status, this.connectionFactory);
		QueueDeclarer declarer = new QueueDeclarer(transport);
		// its consumers tell their losses to the queue recovery, which consumes through it again
		this.subscriber = new QueueSubscriber(processor, registry, settings, this.status, this::channelLost);
		this.queueRecovery = new QueueRecovery(transport, settings.topology(), settings.shutdownTimeout(), this.status,
				this.executors, declarer, this.subscriber);
		this.topologyCheck = new TopologyCheck(transport, settings.topology(), settings.topologyCheckInterval(),
				this.status, this.executors, declarer);
		this.drain = new ConsumerDrain(this.status, settings.shutdownTimeout());
		PartitionBalancer balancer = new PartitionBalancer(this.status, this.executors, declarer, this.subscriber,
				this.drain, settings.shutdownTimeout());
		this.recovery = new ConnectionRecovery(transport, this.connectionFactory, settings.topology(), this.status,
				this.executors, declarer, this.subscriber, balancer);
	}

	/** Partitions spread keys over instances: pointless, and misleading, for an unordered endpoint. */
	private static void requireOrderedPartitions(ReceiveEndpoint endpoint) {
		if (endpoint.partitions() > 1 && !endpoint.partitionByOrderingKey()) {
			throw new IllegalArgumentException("Queue '" + endpoint.queue() + "' has " + endpoint.partitions()
					+ " partitions but is not partitioned by ordering key: partitions keep each key on one instance "
					+ "for its order, which an endpoint that handles a key's messages concurrently does not keep. "
					+ "Partition it by ordering key (waybill.inbox.partition-by-ordering-key: true), or set its "
					+ "partitions to 1.");
		}
	}

	private void channelLost(Connection session, String queue, @Nullable InboxConsumer cancelled, String what) {
		this.queueRecovery.channelLost(session, queue, cancelled, what);
	}

	/**
	 * Connects, declares the topology and starts consuming. When the broker cannot be reached
	 * (within the connection timeout) it logs a warning and returns, and the consumers start in
	 * the background once the broker is back.
	 * @throws IllegalStateException when the broker is reachable but refuses the credentials or
	 * the topology (e.g. a queue that exists with other arguments, a missing permission)
	 */
	@Override
	public synchronized void start() {
		if (this.status.running() || this.status.endpoints().isEmpty()) {
			return;
		}
		int threads = this.status.endpoints().stream().mapToInt(ReceiveEndpoint::concurrency).sum();
		this.executors.start(this.settings.threads(), threads);
		this.status.running(true);
		this.subscriber.logBatchesCappedByPrefetch();
		this.topologyCheck.schedule();
		Exception failure;
		try {
			failure = this.executors.submit(this.recovery::connect).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			stop();
			throw new IllegalStateException("Interrupted while starting to consume " + queues(), ex);
		}
		catch (ExecutionException ex) {
			failure = (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
		if (failure == null) {
			logger.info("Waybill consuming " + queues());
			return;
		}
		if (ConsumerRefusal.refused(failure)) {
			stop();
			String refused = "Waybill could not start consuming " + queues() + " from RabbitMQ at " + this.transport;
			String reason = BrokerErrors.describe(failure);
			throw new BrokerRefusedException(refused + ": " + reason, refused + ":\n\n    " + reason,
					"Fix what the broker refused: the credentials or virtual host (spring.rabbitmq.* or "
							+ "waybill.rabbit.*), the user's configure, write or read permissions, or a queue or "
							+ "exchange that exists with other arguments or type than Waybill declares (declare the "
							+ "same, or move its messages away and delete it).", failure);
		}
		this.recovery.unreachableAtStart(failure);
	}

	/**
	 * Stops gracefully, within the {@linkplain ReceiveEndpointSettings#shutdownTimeout shutdown
	 * timeout}: cancels every consumer so the broker sends no more deliveries, lets the handlers
	 * finish and acknowledge the deliveries they are running, returns the deliveries received ahead
	 * (prefetched, not yet handled) to the queue, and only then closes the connection. So no delivery
	 * whose handler ran is delivered again.
	 */
	@Override
	public synchronized void stop() {
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
		this.status.running(false);
		this.executors.stopConnector();
		Connection current = this.status.connection();
		if (current != null) {
			this.drain.drain(current, deadline);
			try {
				current.close(5000);
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Closing the consumer connection failed: " + ex.getMessage());
			}
			this.status.connection(null);
		}
		this.executors.stopConsumers(deadline);
	}

	/**
	 * Returns {@link WaybillPhases#CONSUMERS}: the endpoint starts after, and stops before, the
	 * relay, so the outcomes its handlers publish are still relayed while it drains.
	 */
	@Override
	public int getPhase() {
		return WaybillPhases.CONSUMERS;
	}

	@Override
	public boolean isRunning() {
		return this.status.running();
	}

	/**
	 * Tells whether the endpoint is consuming: started, connected, its topology declared. A started
	 * endpoint is not consuming while the broker is unreachable.
	 * @return whether every consumer is consuming its queue
	 */
	public boolean isConsuming() {
		return this.status.isConsuming();
	}

	/**
	 * Tells whether the endpoint is consuming one of its queues: connected, with every consumer of
	 * that queue subscribed.
	 * @param queue one of {@link #queues()}
	 * @return whether it is consuming that queue
	 */
	public boolean isConsuming(String queue) {
		return this.status.isConsuming(queue);
	}

	/**
	 * Returns why the endpoint is not consuming: the last failure to connect or the loss of its
	 * connection, as the broker described it (no credentials), or the queues it lost.
	 * @return the reason, or {@literal null} while consuming or before any failure
	 */
	public @Nullable String notConsumingReason() {
		return this.status.notConsumingReason();
	}

	/**
	 * Returns why the endpoint is not consuming one of its queues.
	 * @param queue one of {@link #queues()}
	 * @return the reason, or {@literal null} while consuming it or before any failure
	 */
	public @Nullable String notConsumingReason(String queue) {
		return this.status.notConsumingReason(queue);
	}

	/**
	 * Returns the queues this endpoint consumes, one per receive endpoint.
	 * @return the queue names
	 */
	public List<String> queues() {
		return this.status.queues();
	}

	/** Reads a delivery as the inbox does; the error queues' browser reads its copies alike. */
	static InboundMessage inbound(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
		return InboundMessages.of(envelope, properties, body);
	}

}
