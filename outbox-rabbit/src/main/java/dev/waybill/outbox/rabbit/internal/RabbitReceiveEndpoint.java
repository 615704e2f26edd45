package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionSystemException;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitHeaders;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * Feeds RabbitMQ deliveries to the inbox. It declares the {@linkplain #setTopology declared
 * topology}, then, for every receive endpoint (a queue and its consumers, one per message type),
 * declares the queue (durable, with the endpoint's arguments), binds it to the exchange of each
 * consumer's message type and to the endpoint's extra bindings, declares {@code <queue>_error},
 * and consumes with manual acknowledgements, the endpoint's prefetch and one channel per unit of
 * its concurrency, on a connection of its own ({@code waybill-consumer}). Each delivery goes to
 * the consumer {@link ConsumerRegistry#dispatch} picks by its message type.
 * <p>
 * Each delivery is acknowledged only after the inbox committed its outcome (processed,
 * duplicate, retry scheduled or faulted: retries and faults leave through the outbox). When the
 * inbox cannot reach the database the delivery is returned to the queue after a pause. When the
 * database refuses to record anything about a delivery ({@link UnrecordableDeliveryException}), the
 * endpoint publishes it unchanged to {@code <queue>_error} with the reason, waits for the broker's
 * confirm and then acknowledges it.
 * <p>
 * The endpoint recovers on its own rather than through the client's topology recovery: when the
 * broker cannot be reached at {@link #start()} it starts anyway and keeps trying in the
 * background; when the connection is lost it opens a new one and declares the whole topology
 * again before consuming, so a broker that lost its definitions (a fresh node, a reset) gets them
 * back. When the broker closes one consume channel (a delivery unacknowledged past its
 * {@code consumer_timeout}) or cancels one consumer (its queue was deleted, its node is down), only
 * that queue is declared again and consumed on a new channel of the same connection: the other
 * queues' channels, and the deliveries they hold, are not touched. Attempts back off from half a
 * second, doubling, up to the transport's recovery interval. A delivery handled while its channel
 * was lost cannot be acknowledged; the broker delivers it again and the inbox recognises it as a
 * duplicate.
 *
 * @since 0.1
 */
public final class RabbitReceiveEndpoint implements SmartLifecycle {

	/** The name of the consuming connection. */
	public static final String CONNECTION_NAME = "waybill-consumer";

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	/** Error queues whose arguments differ from Waybill's, warned about once each. */
	private final Set<String> errorQueuesWarned = ConcurrentHashMap.newKeySet();

	private static final long INFRASTRUCTURE_PAUSE_MILLIS = 1000;

	private static final long FIRST_RETRY_MILLIS = 500;

	private static final long RETIRE_CHECK_MILLIS = 50;

	private static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

	/** The default most deliveries of one consuming thread handled in one inbox transaction. */
	public static final int DEFAULT_BATCH_SIZE = 16;

	/** The default longest wait for a batch to fill, when more deliveries are arriving. */
	public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(1);

	/** The default interval between declarations of the topology on a live consuming connection. */
	public static final Duration DEFAULT_TOPOLOGY_CHECK_INTERVAL = Duration.ofSeconds(30);

	private final RabbitTransport transport;

	private final DeliveryProcessor processor;

	private final ConsumerRegistry registry;

	/** The receive endpoints: each queue with its consumers. */
	private final Map<String, List<ConsumerRegistration<?>>> endpoints;

	private volatile RabbitTopology topology = RabbitTopology.EMPTY;

	private final ConnectionFactory connectionFactory;

	/** The consuming connection while consuming; read by any thread, written by the connector. */
	private volatile @Nullable Connection connection;

	private @Nullable ExecutorService executor;

	/** Runs every attempt to connect, and every reaction to a loss, one at a time. */
	private volatile @Nullable ScheduledExecutorService connector;

	private volatile boolean running;

	private volatile WaybillThreads threads = WaybillThreads.platform();

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private int batchSize = DEFAULT_BATCH_SIZE;

	private Duration batchLinger = DEFAULT_BATCH_LINGER;

	private Duration topologyCheckInterval = DEFAULT_TOPOLOGY_CHECK_INTERVAL;

	/** The consumers of the current and earlier connections, for cancelling them at stop. */
	private final Queue<InboxConsumer> inboxConsumers = new ConcurrentLinkedQueue<>();

	/** Per queue, shared by its consumers: an outage is told once, not per consumer thread. */
	private final Map<String, RecordingOutageLog> outageLogs = new java.util.concurrent.ConcurrentHashMap<>();

	// Confined to the connector thread:

	private int failedAttempts;

	private @Nullable String lastFailure;

	private @Nullable String lastTopologyCheckFailure;

	/** Why it is not consuming, for health checks; any thread reads it. */
	private volatile @Nullable String notConsumingReason;

	/** Why a queue lost a channel or consumer of the current connection, until it consumes again. */
	private final Map<String, String> queueLosses = new ConcurrentHashMap<>();

	/**
	 * Creates an endpoint.
	 * @param transport the transport whose connection settings and exchange type to use
	 * @param processor handles each delivery
	 * @param consumers the consumers to run
	 */
	public RabbitReceiveEndpoint(RabbitTransport transport, DeliveryProcessor processor,
			List<? extends ConsumerRegistration<?>> consumers) {
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
		this.processor = Objects.requireNonNull(processor, "processor must not be null");
		this.registry = ConsumerRegistry.of(consumers);
		processor.describeQueues(this.registry);
		this.endpoints = this.registry.endpoints();
		this.connectionFactory = consumingConnectionFactory(transport.connectionFactory(), transport.maxBodySize());
	}

	/**
	 * Sets the topology declared on every connection before the consumers' queues, so their extra
	 * bindings find their exchanges: at start and again after every recovery.
	 * @param topology the exchanges, queues and bindings; {@link RabbitTopology#EMPTY} by default
	 * @since 0.3
	 */
	public void setTopology(RabbitTopology topology) {
		this.topology = Objects.requireNonNull(topology, "topology must not be null");
	}

	/**
	 * Sets how often the topology and every consumed queue with its bindings are declared again on
	 * the live connection, {@link #DEFAULT_TOPOLOGY_CHECK_INTERVAL} by default: deleting an exchange
	 * deletes its bindings, the consumers' too, and nothing tells a consumer, so without this they
	 * come back only with a new connection. Zero declares only when connecting.
	 * @param interval the interval, zero or positive
	 * @since 0.14
	 */
	public void setTopologyCheckInterval(Duration interval) {
		Objects.requireNonNull(interval, "interval must not be null");
		if (interval.isNegative()) {
			throw new IllegalArgumentException("interval must not be negative: " + interval);
		}
		this.topologyCheckInterval = interval;
	}

	/**
	 * Sets where the consumers' and the connecting threads come from; {@link WaybillThreads#platform()} by default.
	 * @param threads the thread source
	 */
	public void setThreads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
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
		if (this.running || this.endpoints.isEmpty()) {
			return;
		}
		int threads = this.endpoints.values().stream().mapToInt((endpoint) -> endpoint.get(0).concurrency()).sum();
		this.executor = Executors.newFixedThreadPool(Math.max(1, threads), this.threads.factory("waybill-consumer-"));
		ScheduledExecutorService connector = Executors
			.newSingleThreadScheduledExecutor(this.threads.named("waybill-consumer-connect"));
		this.connector = connector;
		this.running = true;
		logBatchesCappedByPrefetch();
		scheduleTopologyCheck();
		Exception failure;
		try {
			failure = connector.submit(this::connect).get();
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
		if (refused(failure)) {
			stop();
			String refused = "Waybill could not start consuming " + queues() + " from RabbitMQ at " + this.transport;
			String reason = BrokerErrors.describe(failure);
			throw new BrokerRefusedException(refused + ": " + reason, refused + ":\n\n    " + reason,
					"Fix what the broker refused: the credentials or virtual host (spring.rabbitmq.* or "
							+ "waybill.rabbit.*), the user's configure, write or read permissions, or a queue or "
							+ "exchange that exists with other arguments or type than Waybill declares (declare the "
							+ "same, or move its messages away and delete it).", failure);
		}
		this.failedAttempts = 1;
		this.lastFailure = BrokerErrors.describe(failure);
		this.notConsumingReason = this.lastFailure;
		logger.warn("RabbitMQ at " + this.transport + " is unreachable (" + this.lastFailure + "); Waybill's consumers of "
				+ queues() + " will start when it is, trying again in the background");
		schedule(this::reconnect, backoff());
	}

	/**
	 * Stops gracefully, within the {@linkplain #setShutdownTimeout shutdown timeout}: cancels every
	 * consumer so the broker sends no more deliveries, lets the handlers finish and acknowledge the
	 * deliveries they are running, returns the deliveries received ahead (prefetched, not yet
	 * handled) to the queue, and only then closes the connection. So no delivery whose handler ran
	 * is delivered again.
	 */
	@Override
	public synchronized void stop() {
		long deadline = System.nanoTime() + this.shutdownTimeout.toNanos();
		this.running = false;
		ScheduledExecutorService connector = this.connector;
		if (connector != null) {
			connector.shutdownNow();
			try {
				// an attempt in progress ends within the connection timeout, and closes what it opened
				connector.awaitTermination(this.connectionFactory.getConnectionTimeout() + 5000L, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.connector = null;
		}
		Connection current = this.connection;
		if (current != null) {
			drain(current, deadline);
			try {
				current.close(5000);
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Closing the consumer connection failed: " + ex.getMessage());
			}
			this.connection = null;
		}
		if (this.executor != null) {
			this.executor.shutdown();
			try {
				this.executor.awaitTermination(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.executor = null;
		}
	}

	/**
	 * Cancels the connection's consumers and waits until each has finished what it holds: the
	 * client dispatches a consumer's cancel-ok after the deliveries received before it, so once it
	 * arrived every earlier delivery was handled and acknowledged, or returned to the queue.
	 */
	private void drain(Connection connection, long deadlineNanos) {
		List<InboxConsumer> cancelled = new ArrayList<>();
		List<InboxConsumer> partitioned = new ArrayList<>();
		for (InboxConsumer consumer : this.inboxConsumers) {
			if (consumer.connection() != connection) {
				continue;
			}
			consumer.stopping = true;
			if (consumer.ordered) {
				partitioned.add(consumer);
				continue;
			}
			String tag = consumer.getConsumerTag();
			try {
				if (tag != null && consumer.getChannel().isOpen()) {
					consumer.getChannel().basicCancel(tag);
					cancelled.add(consumer);
				}
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Cancelling the consumer of " + consumer.queue + " failed: " + ex.getMessage());
			}
		}
		// Partitioned by ordering key: no cancel. A cancelled consumer's deliveries, still held,
		// would return to the queue after the broker gave later ones to another consumer (the next
		// single active consumer); closing the channel returns them at once, at the head of the
		// queue, before the broker serves anyone else. So: finish what the lanes are handling,
		// leave what they hold unacknowledged, close.
		for (InboxConsumer consumer : partitioned) {
			try {
				if (!Objects.requireNonNull(consumer.lanes).awaitIdle(deadlineNanos)) {
					logger.warn("Waybill's consumer of " + consumer.queue + " did not finish its deliveries "
							+ "within " + this.shutdownTimeout + "; the broker delivers those again");
				}
				consumer.getChannel().close();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			catch (IOException | TimeoutException | RuntimeException ex) {
				logger.debug("Closing the channel of the consumer of " + consumer.queue + " failed: "
						+ ex.getMessage());
			}
		}
		for (InboxConsumer consumer : cancelled) {
			try {
				// the cancel-ok comes after every earlier delivery was handed to the lane, if any
				if (!consumer.finished.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
						|| (consumer.lanes != null && !consumer.lanes.awaitIdle(deadlineNanos))) {
					logger.warn("Waybill's consumer of " + consumer.queue + " did not finish its deliveries within "
							+ this.shutdownTimeout + "; the broker delivers those again");
					break;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		this.inboxConsumers.removeIf((consumer) -> {
			if (consumer.connection() == connection) {
				consumer.shutdownPartitions();
				return true;
			}
			return false;
		});
	}

	/**
	 * Sets how deliveries are batched: a consuming thread takes up to {@code maxSize} deliveries it
	 * holds (received ahead, within the prefetch) into one inbox transaction
	 * ({@link DeliveryProcessor#processBatch}) and acknowledges them after it committed. A lone
	 * delivery is handled at once; when several are waiting the thread waits up to {@code linger}
	 * for the batch to fill. Set before {@link #start()}.
	 * @param maxSize at least 1; 1 handles each delivery in a transaction of its own
	 * @param linger zero or positive
	 * @since 0.4
	 */
	public void setBatch(int maxSize, Duration linger) {
		if (maxSize < 1) {
			throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
		}
		Objects.requireNonNull(linger, "linger must not be null");
		if (linger.isNegative()) {
			throw new IllegalArgumentException("linger must not be negative, was " + linger);
		}
		this.batchSize = maxSize;
		this.batchLinger = linger;
	}

	/**
	 * Sets how long {@link #stop()} waits for the handlers to finish the deliveries they hold.
	 * @param shutdownTimeout positive; 30 seconds by default
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
		if (shutdownTimeout.isNegative() || shutdownTimeout.isZero()) {
			throw new IllegalArgumentException("shutdownTimeout must be positive, was " + shutdownTimeout);
		}
		this.shutdownTimeout = shutdownTimeout;
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
		return this.running;
	}

	/**
	 * Tells whether the endpoint is consuming: started, connected, its topology declared. A started
	 * endpoint is not consuming while the broker is unreachable.
	 * @return whether every consumer is consuming its queue
	 */
	public boolean isConsuming() {
		return connected() && this.endpoints.keySet().stream().allMatch(this::consumes);
	}

	/**
	 * Tells whether the endpoint is consuming one of its queues: connected, with every consumer of
	 * that queue subscribed.
	 * @param queue one of {@link #queues()}
	 * @return whether it is consuming that queue
	 * @since 0.5
	 */
	public boolean isConsuming(String queue) {
		return connected() && consumes(queue);
	}

	private boolean connected() {
		Connection current = this.connection;
		return this.running && current != null && current.isOpen();
	}

	private boolean consumes(String queue) {
		Connection current = this.connection;
		List<ConsumerRegistration<?>> consumers = this.endpoints.get(queue);
		if (consumers == null) {
			return false;
		}
		long subscribed = this.inboxConsumers.stream()
			.filter((consumer) -> consumer.queue.equals(queue) && consumer.connection() == current
					&& !consumer.cancelled && consumer.getChannel().isOpen())
			.count();
		return subscribed >= channels(consumers.get(0));
	}

	/**
	 * Returns why the endpoint is not consuming: the last failure to connect or the loss of its
	 * connection, as the broker described it (no credentials), or the queues it lost.
	 * @return the reason, or {@literal null} while consuming or before any failure
	 * @since 0.2
	 */
	public @Nullable String notConsumingReason() {
		if (isConsuming()) {
			return null;
		}
		if (!connected()) {
			return this.notConsumingReason;
		}
		return this.endpoints.keySet()
			.stream()
			.filter((queue) -> !consumes(queue))
			.map((queue) -> queue + ": " + Objects.requireNonNullElse(this.queueLosses.get(queue), "resuming"))
			.collect(Collectors.joining("; "));
	}

	/**
	 * Returns why the endpoint is not consuming one of its queues.
	 * @param queue one of {@link #queues()}
	 * @return the reason, or {@literal null} while consuming it or before any failure
	 * @since 0.5
	 */
	public @Nullable String notConsumingReason(String queue) {
		if (isConsuming(queue)) {
			return null;
		}
		return connected() ? Objects.requireNonNullElse(this.queueLosses.get(queue), "resuming")
				: this.notConsumingReason;
	}

	/**
	 * One attempt, on the connector thread: connects, declares every consumer's topology and
	 * consumes; on any failure closes what it opened.
	 * @return the failure, or {@literal null} when consuming
	 */
	private @Nullable Exception connect() {
		Connection created = null;
		try {
			created = this.transport.newConnection(this.connectionFactory, Objects.requireNonNull(this.executor), CONNECTION_NAME);
			this.topology.declare(created);
			for (Map.Entry<String, List<ConsumerRegistration<?>>> endpoint : this.endpoints.entrySet()) {
				declare(created, endpoint.getKey(), endpoint.getValue());
			}
			for (Map.Entry<String, List<ConsumerRegistration<?>>> endpoint : this.endpoints.entrySet()) {
				ConsumerRegistration<?> settings = endpoint.getValue().get(0);
				for (int i = 0; i < channels(settings); i++) {
					consume(created, endpoint.getKey(), settings);
				}
			}
			if (!this.running) {
				throw new IllegalStateException("stopped while connecting");
			}
			this.queueLosses.clear();
			this.connection = created;
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

	/**
	 * Another attempt after a failed one, on the connector thread; schedules the next one on
	 * failure.
	 */
	private void reconnect() {
		if (!this.running || this.connection != null) {
			return;
		}
		Exception failure = connect();
		if (failure == null) {
			String after = (this.failedAttempts == 0) ? ""
					: ", after " + this.failedAttempts + " failed attempt" + ((this.failedAttempts == 1) ? "" : "s");
			logger.info("Waybill consuming " + queues() + " from RabbitMQ at " + this.transport + after);
			this.failedAttempts = 0;
			this.lastFailure = null;
			return;
		}
		this.failedAttempts++;
		long delay = backoff();
		String reason = BrokerErrors.describe(failure);
		String text = "Waybill could not resume consuming " + queues() + " from RabbitMQ at " + this.transport + ": "
				+ reason + "; trying again in " + delay + " ms";
		if (reason.equals(this.lastFailure)) {
			logger.debug(text);
		}
		else if (refused(failure)) {
			logger.error(text); // an operator must act (credentials, permissions, queue arguments)
		}
		else {
			logger.warn(text);
		}
		this.lastFailure = reason;
		this.notConsumingReason = reason;
		schedule(this::reconnect, delay);
	}

	/**
	 * Reacts to the loss of a consuming connection or channel, on any thread: closes that
	 * connection, unless it was replaced already, and connects again.
	 */
	private void lost(Connection session, String what) {
		schedule(() -> {
			if (!this.running || this.connection != session) {
				return;
			}
			this.connection = null;
			this.notConsumingReason = what;
			logger.warn("Waybill stopped consuming " + queues() + " from RabbitMQ at " + this.transport + " (" + what
					+ "); it declares its topology again and resumes once the broker can be reached");
			session.abort(this.connectionFactory.getConnectionTimeout());
			this.failedAttempts = 0;
			this.lastFailure = null;
			schedule(this::reconnect, backoff());
		}, 0);
	}

	/**
	 * Reacts to the loss of one consume channel or consumer, on any thread: declares the declared
	 * topology and its queue again and consumes it on a new channel of the same connection, leaving
	 * the other channels alone.
	 * When the connection itself is lost, {@link #lost} renews it all.
	 * @param cancelled the consumer the broker cancelled, whose channel is still open; {@literal null}
	 * when the broker closed the channel
	 */
	private void channelLost(Connection session, String queue, @Nullable InboxConsumer cancelled, String what) {
		schedule(() -> {
			if (!this.running || this.connection != session || !session.isOpen()) {
				return;
			}
			if (this.queueLosses.put(queue, what) == null) { // told once for the queue, not per channel
				logger.warn("Waybill stopped consuming " + queue + " on one channel (" + what + "); it declares "
						+ "the queue again and resumes on a new channel, the other queues consume on");
			}
			if (cancelled != null) {
				retire(session, queue, what, cancelled, System.nanoTime() + this.shutdownTimeout.toNanos());
			}
			else {
				resume(session, queue, what, 0, null);
			}
		}, 0);
	}

	/**
	 * Lets the lanes of a consumer the broker cancelled finish the deliveries they hold, then closes
	 * its channel and consumes the queue again: a queue deleted took those messages with it, and
	 * what the lanes hold is all that is left of them (the inbox makes a copy the broker still has
	 * take effect once). A new channel starts only after them, so a key's deliveries stay in order.
	 */
	private void retire(Connection session, String queue, String lost, InboxConsumer cancelled, long deadlineNanos) {
		if (!this.running || this.connection != session || !session.isOpen()) {
			return;
		}
		KeyPartitions<Held> lanes = cancelled.lanes;
		if (lanes != null && !lanes.idle() && System.nanoTime() - deadlineNanos < 0) {
			schedule(() -> retire(session, queue, lost, cancelled, deadlineNanos), RETIRE_CHECK_MILLIS);
			return;
		}
		RabbitTransport.abortQuietly(cancelled.getChannel());
		resume(session, queue, lost, 0, null);
	}

	/**
	 * One attempt to consume a queue again on the same connection; schedules the next on failure.
	 * @param lost how the queue's consumer was lost, kept in the queue's reason beside the last
	 * failure to resume it
	 */
	private void resume(Connection session, String queue, String lost, int failedAttempts,
			@Nullable String lastReason) {
		if (!this.running || this.connection != session || !session.isOpen()) {
			return;
		}
		List<ConsumerRegistration<?>> consumers = Objects.requireNonNull(this.endpoints.get(queue));
		try {
			this.topology.declare(session); // its extra bindings may name declared exchanges an operator deleted too
			declare(session, queue, consumers);
			consume(session, queue, consumers.get(0));
		}
		catch (IOException | RuntimeException ex) {
			if (!session.isOpen()) {
				return; // the connection's loss renews it all
			}
			long delay = backoff(failedAttempts + 1);
			String reason = BrokerErrors.describe(ex);
			String text = "Waybill could not resume consuming " + queue + " from RabbitMQ at " + this.transport + ": "
					+ reason + "; trying again in " + delay + " ms";
			if (reason.equals(lastReason)) {
				logger.debug(text);
			}
			else if (refused(ex)) {
				logger.error(text);
			}
			else {
				logger.warn(text);
			}
			this.queueLosses.put(queue, lost + "; consuming it again failed: " + reason);
			schedule(() -> resume(session, queue, lost, failedAttempts + 1, reason), delay);
			return;
		}
		if (consumes(queue)) {
			this.queueLosses.remove(queue);
			logger.info("Waybill consuming " + queue + " again from RabbitMQ at " + this.transport);
		}
	}

	private void scheduleTopologyCheck() {
		if (!this.topologyCheckInterval.isZero()) {
			schedule(this::checkTopology, this.topologyCheckInterval.toMillis());
		}
	}

	/**
	 * Declares the topology and each consumed queue with its bindings again on the live connection,
	 * on the connector thread: what an operator deleted (an exchange, and its bindings with it)
	 * comes back without a new connection. A queue being resumed is left to its resumption.
	 */
	private void checkTopology() {
		Connection session = this.connection;
		if (session == null || !session.isOpen()) {
			scheduleTopologyCheck();
			return;
		}
		try {
			this.topology.declare(session);
			for (Map.Entry<String, List<ConsumerRegistration<?>>> endpoint : this.endpoints.entrySet()) {
				if (!this.queueLosses.containsKey(endpoint.getKey())) {
					declare(session, endpoint.getKey(), endpoint.getValue());
				}
			}
			if (this.lastTopologyCheckFailure != null) {
				logger.info("Waybill declared its topology on RabbitMQ at " + this.transport + " again");
				this.lastTopologyCheckFailure = null;
			}
		}
		catch (IOException | RuntimeException ex) {
			if (session.isOpen()) { // else the connection's loss renews it all
				String reason = BrokerErrors.describe(ex);
				if (!reason.equals(this.lastTopologyCheckFailure)) {
					logger.warn("Waybill could not declare its topology on RabbitMQ at " + this.transport
							+ " again: " + reason + "; its consumers go on, and it tries again in "
							+ this.topologyCheckInterval);
				}
				this.lastTopologyCheckFailure = reason;
			}
		}
		finally {
			scheduleTopologyCheck();
		}
	}

	private void schedule(Runnable task, long delayMillis) {
		ScheduledExecutorService connector = this.connector;
		if (connector == null || !this.running) {
			return;
		}
		try {
			connector.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopped
		}
	}

	private long backoff() {
		return backoff(this.failedAttempts);
	}

	private long backoff(int failedAttempts) {
		long cap = Math.max(1, this.connectionFactory.getNetworkRecoveryInterval());
		long first = Math.min(FIRST_RETRY_MILLIS, cap);
		int doublings = Math.min(Math.max(0, failedAttempts - 1), 20);
		return Math.min(cap, first << doublings);
	}

	/**
	 * Returns the queues this endpoint consumes, one per receive endpoint.
	 * @return the queue names
	 * @since 0.2
	 */
	public List<String> queues() {
		return List.copyOf(this.endpoints.keySet());
	}

	/**
	 * Declares one receive endpoint: its queue, bound to the exchange of each consumer's message
	 * type and to its extra bindings' exchanges, and its error queue.
	 */
	private void declare(Connection connection, String queue, List<ConsumerRegistration<?>> consumers)
			throws IOException {
		ConsumerRegistration<?> settings = consumers.get(0);
		Channel channel = connection.createChannel();
		try {
			channel.queueDeclare(queue, true, false, false, settings.queueArguments());
			for (ConsumerRegistration<?> consumer : consumers) {
				String exchange = consumer.messageType();
				channel.exchangeDeclare(exchange, this.transport.exchangeType(), true);
				// Every message of the type: "#" on a topic exchange; the default empty routing key on a
				// direct one; fanout ignores it.
				channel.queueBind(queue, exchange, this.transport.bindAllKey());
			}
			for (EndpointBinding binding : settings.bindings()) {
				channel.queueBind(queue, binding.exchange(), binding.routingKey());
			}
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		declareErrorQueue(connection, settings.errorQueue(), settings.queueArguments());
	}

	/**
	 * Declares an error queue with its consumer queue's type but none of its limits. One that exists
	 * with other arguments (an earlier version declared error queues with all of the consumer queue's)
	 * is used as it is, with a warning: declaring it anew would need it deleted.
	 */
	private void declareErrorQueue(Connection connection, String errorQueue, Map<String, Object> queueArguments)
			throws IOException {
		Channel channel = connection.createChannel();
		try {
			channel.queueDeclare(errorQueue, true, false, false, ErrorQueueArguments.of(queueArguments));
			return;
		}
		catch (IOException ex) {
			ShutdownSignalException signal = BrokerErrors.signal(ex);
			if (signal == null || BrokerErrors.channelReplyCode(signal) != AMQP.PRECONDITION_FAILED) {
				throw ex;
			}
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		Channel passive = connection.createChannel();
		try {
			passive.queueDeclarePassive(errorQueue);
		}
		finally {
			RabbitTransport.abortQuietly(passive);
		}
		if (this.errorQueuesWarned.add(errorQueue)) {
			logger.warn("Waybill's error queue '" + errorQueue + "' exists with other arguments than Waybill declares "
					+ ErrorQueueArguments.of(queueArguments) + " (its consumer queue's type, none of its limits); it is "
					+ "used as it is. If it carries a message TTL, a length limit, a delivery limit or dead-lettering, "
					+ "faulted messages can be dropped: move its messages away, delete it, and Waybill declares it anew");
		}
	}

	/**
	 * Whether the endpoint keeps each key's order (one lane per worker, no cancel at a stop, an
	 * outage retried in place): also at concurrency 1, where a requeued delivery would lose its
	 * place too (a quorum queue puts it at its tail) and a cancel at a stop would let the next
	 * single active consumer start before what this one held went back.
	 */
	private static boolean partitioned(ConsumerRegistration<?> settings) {
		return settings.partitionByOrderingKey();
	}

	/** Partitioned by ordering key: one channel whose workers are the key lanes; else one per thread. */
	private static int channels(ConsumerRegistration<?> settings) {
		return partitioned(settings) ? 1 : settings.concurrency();
	}

	private void consume(Connection connection, String queue, ConsumerRegistration<?> settings) throws IOException {
		Channel channel = connection.createChannel();
		boolean ordered = partitioned(settings);
		int lanes = ordered ? settings.concurrency() : 1;
		channel.basicQos(settings.prefetch() * lanes);
		InboxConsumer inboxConsumer = new InboxConsumer(channel, queue, ordered, lanes == 1);
		// Without batched transactions (JPA's transaction manager) a lane takes one delivery at a
		// time: handed several, the inbox would run them all, also after a stop began.
		int batchSize = (this.processor.whyNotBatched() == null) ? this.batchSize : 1;
		if (ordered || batchSize > 1) {
			// A lane cannot take more than the broker sends ahead of it.
			inboxConsumer.lanes = new KeyPartitions<>(lanes, Math.min(batchSize, settings.prefetch()),
					this.batchLinger.toNanos(), this.threads.factory("waybill-consumer-" + queue + "-"),
					inboxConsumer::handleBatch);
		}
		this.inboxConsumers.removeIf((earlier) -> !earlier.getChannel().isOpen());
		this.inboxConsumers.add(inboxConsumer);
		channel.basicConsume(queue, false, inboxConsumer);
		// A channel the broker closes alone (e.g. a delivery unacknowledged past its consumer_timeout)
		channel.addShutdownListener((cause) -> {
			// a cancelled consumer's channel is being retired: its queue is resumed already
			if (!cause.isHardError() && !cause.isInitiatedByApplication() && !inboxConsumer.cancelled) {
				channelLost(connection, queue, null, "the broker closed a channel consuming " + queue + ": "
						+ BrokerErrors.describe(cause));
			}
		});
	}

	/**
	 * Whether the broker was reached and refused: the credentials, or a declaration (a queue with
	 * other arguments, a missing permission). Anything else is taken as the broker being
	 * unreachable.
	 */
	static boolean refused(Throwable failure) {
		if (BrokerErrors.connectionRefused(failure) || BrokerErrors.certificateRejected(failure)) {
			return true;
		}
		ShutdownSignalException signal = BrokerErrors.signal(failure);
		int code = (signal != null) ? BrokerErrors.channelReplyCode(signal) : 0;
		// NOT_FOUND: an extra binding's exchange nobody declared; not a classic queue whose node is
		// down (a node restarted, a rolling upgrade), which is back when the node is
		return code == AMQP.ACCESS_REFUSED || code == AMQP.PRECONDITION_FAILED
				|| (code == AMQP.NOT_FOUND && !BrokerErrors.queueNodeDown(signal));
	}

	/** Says where an endpoint's prefetch holds its batches below the configured maximum. */
	private void logBatchesCappedByPrefetch() {
		if (this.batchSize <= 1) {
			return;
		}
		this.endpoints.forEach((queue, registrations) -> {
			int prefetch = registrations.get(0).prefetch();
			if (prefetch < this.batchSize) {
				logger.info("Waybill batches at most " + prefetch + " deliveries of queue '" + queue
						+ "' in a transaction, its prefetch, below the batch max-size of " + this.batchSize
						+ " (raise the endpoint's prefetch to fill larger batches)");
			}
		});
	}

	/**
	 * A database failure as an operator needs it: a failed rollback's own message ("JDBC rollback
	 * failed") says less than the error that made it roll back, and a wrapper's less than its cause.
	 */
	static String reason(@Nullable Throwable failure) {
		if (failure == null) {
			return "?";
		}
		Throwable shown = (failure instanceof TransactionSystemException end && end.getApplicationException() != null)
				? end.getApplicationException() : failure;
		// Spring's data access wrappers quote the whole statement ("PreparedStatementCallback; SQL
		// [INSERT ...]"): their cause says what went wrong.
		while (shown instanceof DataAccessException && shown.getCause() != null) {
			shown = shown.getCause();
		}
		String text = String.valueOf(shown.getMessage());
		Throwable root = NestedExceptionUtils.getRootCause(shown);
		return (root != null && root.getMessage() != null && !text.contains(root.getMessage()))
				? text + " (" + root.getMessage() + ")" : text;
	}

	/** amqp-client's limit on inbound bodies unless told otherwise (64 MiB). */
	private static final long CLIENT_DEFAULT_MAX_INBOUND_BODY = 64L * 1024 * 1024;

	/**
	 * The transport's connection settings, without the client's automatic recovery: the endpoint
	 * recovers itself, declaring its topology again (the client would replay declarations on the
	 * short-lived channels they were made on, which are closed by then, and report each as an error).
	 * It receives bodies as large as the transport may publish (the broker's limit,
	 * {@code waybill.rabbit.max-body-size}): over the client's own limit, 64 MiB by default, the
	 * client drops the connection, and the broker delivers the message again on every new one. Its
	 * connections hand on a message whose headers the client cannot read with those headers set
	 * aside ({@link ReadableHeadersConnectionFactory}), for the same reason.
	 */
	private static ConnectionFactory consumingConnectionFactory(ConnectionFactory transportFactory, long maxBodySize) {
		ConnectionFactory factory = ReadableHeadersConnectionFactory.copyOf(transportFactory);
		factory.setMaxInboundMessageBodySize((int) Math.min(Integer.MAX_VALUE,
				Math.max(maxBodySize, CLIENT_DEFAULT_MAX_INBOUND_BODY)));
		factory.setAutomaticRecoveryEnabled(false);
		factory.setTopologyRecoveryEnabled(false);
		factory.setExceptionHandler(new ClientExceptionHandler());
		return factory;
	}

	private final class InboxConsumer extends DefaultConsumer {

		private final String queue;

		/** Whether partitioned by ordering key: a requeued delivery would come back behind its key's later ones. */
		final boolean ordered;

		/** Whether one lane has the channel: every earlier delivery is its own, settled in order. */
		private final boolean oneLane;

		/**
		 * The lanes that handle the deliveries in batches: one per key partition when ordered, else
		 * one; {@literal null} when each delivery is handled alone on the dispatch thread.
		 */
		volatile @Nullable KeyPartitions<Held> lanes;

		/** Counted down once the consumer's cancel-ok arrived, or its channel closed. */
		final CountDownLatch finished = new CountDownLatch(1);

		volatile boolean stopping;

		/** Whether the broker cancelled it: its channel is open, but nothing more comes. */
		volatile boolean cancelled;

		private final RecordingOutageLog outageLog;

		InboxConsumer(Channel channel, String queue, boolean ordered, boolean oneLane) {
			super(channel);
			this.queue = queue;
			this.ordered = ordered;
			this.oneLane = oneLane;
			this.outageLog = RabbitReceiveEndpoint.this.outageLogs.computeIfAbsent(queue, RecordingOutageLog::new);
		}

		void shutdownPartitions() {
			KeyPartitions<Held> lanes = this.lanes;
			if (lanes != null) {
				lanes.shutdown();
			}
		}

		Connection connection() {
			return getChannel().getConnection();
		}

		@Override
		public void handleCancelOk(String consumerTag) {
			this.finished.countDown();
		}

		@Override
		public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
			this.finished.countDown();
			// What the lanes still hold is skipped (the channel is closed) and delivered again.
			shutdownPartitions();
		}

		@Override
		public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
				throws IOException {
			if (this.stopping) {
				if (!this.ordered) {
					// received ahead of the handlers, never handled: back to the queue for the next consumer
					getChannel().basicReject(envelope.getDeliveryTag(), true);
				}
				// partitioned: left unacknowledged, returned in order when the channel closes (see drain)
				return;
			}
			InboundMessage message = inbound(envelope, properties, body);
			Object supertypes = message.headers().get(MessageTypes.SUPERTYPES_HEADER);
			Object classHint = message.headers().get(MessageTypes.CLASS_HEADER);
			ConsumerRegistration<?> registration = RabbitReceiveEndpoint.this.registry.dispatch(this.queue,
					message.messageType(), (supertypes instanceof String text) ? text : null,
					(classHint instanceof String name) ? name : null);
			KeyPartitions<Held> lanes = this.lanes;
			if (lanes != null) {
				// Ordering (issue 17): a key's deliveries on one lane, in delivery order; the lane
				// handles them in batches and acknowledges. The dispatch thread goes on at once.
				Object key = message.headers().get(PublishOptions.ORDERING_KEY_HEADER);
				lanes.submit((key instanceof String text) ? text : null,
						new Held(registration, envelope, properties, body, message));
				return;
			}
			long startedAt = System.nanoTime();
			try {
				RabbitReceiveEndpoint.this.processor.process(registration, message);
				this.outageLog.recorded(startedAt);
			}
			catch (UnrecordableDeliveryException ex) {
				try {
					ErrorQueueFallback.publish(getChannel().getConnection(), registration, envelope, properties, body, ex);
				}
				catch (IOException | TimeoutException | RuntimeException publishFailure) {
					logger.warn("Waybill could not move delivery " + properties.getMessageId() + " to "
							+ registration.errorQueue() + ", returning it to the queue: " + publishFailure.getMessage());
					pause();
					getChannel().basicNack(envelope.getDeliveryTag(), false, true);
					return;
				}
			}
			catch (RuntimeException ex) {
				this.outageLog.failed("Waybill could not record delivery " + properties.getMessageId() + " on "
						+ this.queue + ", returning it to the queue: " + reason(ex), reason(ex));
				pause();
				getChannel().basicNack(envelope.getDeliveryTag(), false, true);
				return;
			}
			catch (Error ex) {
				// The JVM's own (an OutOfMemoryError): not the message's failure, and not rethrown, since
				// the client would close the channel as the application's doing, which is never recovered.
				logger.error("Waybill's consumer of " + this.queue + " failed on delivery " + properties.getMessageId()
						+ "; it stays unacknowledged until its channel closes", ex);
				return;
			}
			finally {
				if (Thread.interrupted()) {
					// A handler's interrupt is not the consumer thread's: the next delivery must not see it.
					logger.debug("A handler left its consumer thread interrupted; the interrupt is cleared");
				}
			}
			getChannel().basicAck(envelope.getDeliveryTag(), false);
		}

		/**
		 * Handles a batch on its lane ({@link DeliveryProcessor#processBatch}) and settles each delivery
		 * after the batch's outcome committed. When the database is unavailable, the deliveries not
		 * recorded are tried again in place after a pause when ordered (a requeued delivery would come
		 * back behind its key's later ones), else returned to the queue after a pause. When stopping,
		 * or when the channel is closed, deliveries not yet handled are left unacknowledged when
		 * ordered (the broker returns them, in order, when the channel closes), else returned to the
		 * queue.
		 */
		void handleBatch(List<Held> batch) {
			Channel channel = getChannel();
			List<Held> remaining = batch;
			while (!remaining.isEmpty() && channel.isOpen()) {
				long startedAt = System.nanoTime();
				if (this.stopping) {
					if (!this.ordered) {
						for (Held held : remaining) {
							settleQuietly(() -> channel.basicReject(held.envelope.getDeliveryTag(), true));
						}
					}
					return;
				}
				List<InboxDelivery> deliveries = new ArrayList<>(remaining.size());
				for (Held held : remaining) {
					deliveries.add(new InboxDelivery(held.registration, held.message));
				}
				List<DeliveryResult> results = RabbitReceiveEndpoint.this.processor.processBatch(deliveries);
				if (results.stream().anyMatch(DeliveryResult::acknowledge)) {
					this.outageLog.recorded(startedAt);
				}
				if (this.oneLane && remaining.size() > 1 && results.stream().allMatch(DeliveryResult::acknowledge)) {
					// The channel's one lane settled every earlier delivery: one frame acknowledges the batch.
					long last = remaining.get(remaining.size() - 1).envelope.getDeliveryTag();
					settleQuietly(() -> channel.basicAck(last, true));
					return;
				}
				List<Held> again = new ArrayList<>();
				RuntimeException outage = null;
				for (int i = 0; i < remaining.size(); i++) {
					Held held = remaining.get(i);
					DeliveryResult result = results.get(i);
					long tag = held.envelope.getDeliveryTag();
					if (result.acknowledge()) {
						settleQuietly(() -> channel.basicAck(tag, false));
					}
					else if (result.unrecordable() && toErrorQueue(channel, held, result.failure())) {
						settleQuietly(() -> channel.basicAck(tag, false));
					}
					else {
						again.add(held);
						outage = (outage != null) ? outage : result.failure();
					}
				}
				if (again.isEmpty()) {
					return;
				}
				this.outageLog.failed("Waybill could not record " + again.size() + " deliveries on " + this.queue
						+ (this.ordered ? ", trying them again in place (the queue is partitioned by ordering key, "
								+ "and a requeued delivery would lose its place): " : ", returning them to the queue: ")
						+ reason(outage), reason(outage));
				pause();
				if (!this.ordered) {
					for (Held held : again) {
						settleQuietly(() -> channel.basicNack(held.envelope.getDeliveryTag(), false, true));
					}
					return;
				}
				remaining = again;
			}
		}

		/** Moves a delivery the inbox cannot record to the error queue; false when that failed too. */
		private boolean toErrorQueue(Channel channel, Held held, @Nullable RuntimeException reason) {
			try {
				ErrorQueueFallback.publish(channel.getConnection(), held.registration, held.envelope, held.properties,
						held.body, (UnrecordableDeliveryException) Objects.requireNonNull(reason));
				return true;
			}
			catch (IOException | TimeoutException | RuntimeException publishFailure) {
				logger.warn("Waybill could not move delivery " + held.properties.getMessageId() + " to "
						+ held.registration.errorQueue() + ": " + publishFailure.getMessage());
				return false;
			}
		}

		private void settleQuietly(ChannelAction action) {
			try {
				action.run();
			}
			catch (IOException | RuntimeException ex) {
				// The channel closed: the broker delivers it again, and the inbox knows it.
				logger.debug("Waybill could not settle a delivery on " + this.queue + ": " + ex.getMessage());
			}
		}

		@Override
		public void handleCancel(String consumerTag) {
			this.cancelled = true;
			channelLost(getChannel().getConnection(), this.queue, this, "the broker cancelled the consumer of "
					+ this.queue + " (its queue was deleted, or its node is down)");
		}

		private void pause() {
			try {
				Thread.sleep(INFRASTRUCTURE_PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** A delivery held for a lane. */
	private record Held(ConsumerRegistration<?> registration, Envelope envelope, AMQP.BasicProperties properties,
			byte[] body, InboundMessage message) {
	}

	private interface ChannelAction {

		void run() throws IOException;

	}

	static InboundMessage inbound(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
		Map<String, Object> headers = new LinkedHashMap<>();
		if (properties.getHeaders() != null) {
			properties.getHeaders().forEach((name, value) -> headers.put(name, AmqpMessages.inboundValue(value)));
		}
		Object conversation = headers.get(RabbitHeaders.CONVERSATION_ID);
		return new InboundMessage(properties.getMessageId(), properties.getType(), properties.getContentType(), headers,
				body, properties.getCorrelationId(), (conversation instanceof String text) ? text : null,
				envelope.getExchange(), envelope.getRoutingKey());
	}

}
