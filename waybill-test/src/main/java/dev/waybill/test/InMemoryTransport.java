package dev.waybill.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

/**
 * A {@link Transport} without a broker, for tests that need only PostgreSQL: what the relay
 * publishes is handed to the application's own handlers through the real {@link DeliveryProcessor}
 * and database, routed as the RabbitMQ topology Waybill declares would route it. A message published
 * to the exchange of its type goes to the queue of every consumer of that type; a message on the
 * default exchange ({@code ""}, the inbox's redeliveries and faults) goes to the queue its routing
 * key names; a message sent to another exchange goes to the queue of every consumer with an extra
 * binding to it ({@code @Consumer(bindings = ...)}, {@code waybill.inbox.endpoints.<queue>.bindings})
 * whose routing key is empty, {@code #} or the message's own (as a fanout exchange, a catch-all
 * topic binding or a direct exchange would route it; other topic patterns are not evaluated). A
 * queue gets one copy however many of its bindings match. Each queue is consumed by as many
 * threads as its consumer's concurrency.
 * <p>
 * Not faithful, by design or because memory cannot be:
 * <ul>
 * <li>A message published to an exchange no local consumer is bound to (another service's
 * consumers) is confirmed and kept in {@link #unrouted()}; RabbitMQ would return it as
 * unroutable ({@code mandatory}) unless a queue of another service were bound.</li>
 * <li>A message sent to a named destination that neither is a message type's exchange nor has an
 * extra binding of a local consumer reaches no handler and is kept in {@link #unrouted()}; RabbitMQ
 * would fail it when the exchange does not exist. Bindings declared only in the broker (or in
 * {@code waybill.rabbit.topology}) are not known.</li>
 * <li>Faulted messages are kept in {@link #errorQueue(String)}, not in a broker queue.</li>
 * <li>No permissions, vhosts, queue arguments (quorum queues, TTL, length limits, dead-letter
 * exchanges), frame or body size limits, connection loss or broker redelivery: a confirm is
 * immediate and nothing is lost. Nothing survives the application context.</li>
 * </ul>
 *
 * @since 0.1
 */
public final class InMemoryTransport implements Transport, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(InMemoryTransport.class);

	/** The pause before a delivery the inbox could not record (database unavailable) is retried. */
	private static final long REQUEUE_PAUSE_MILLIS = 200;

	private final Supplier<List<ReceiveEndpoint>> endpoints;

	private final Supplier<DeliveryProcessor> processor;

	private final Map<String, BlockingQueue<InboundMessage>> queues = new ConcurrentHashMap<>();

	private final Map<String, List<InboundMessage>> errorQueues = new ConcurrentHashMap<>();

	private final List<OutboxMessage> unrouted = new CopyOnWriteArrayList<>();

	private final List<Thread> workers = new ArrayList<>();

	private volatile boolean running;

	private volatile boolean closed;

	/**
	 * Creates a transport.
	 * @param endpoints the application's receive endpoints, asked when the transport starts and routes
	 * @param processor the inbox, asked when the first delivery is handled
	 */
	public InMemoryTransport(Supplier<List<ReceiveEndpoint>> endpoints, Supplier<DeliveryProcessor> processor) {
		this.endpoints = Objects.requireNonNull(endpoints, "endpoints must not be null");
		this.processor = Objects.requireNonNull(processor, "processor must not be null");
	}

	@Override
	public TransportChannel openChannel() throws TransportException {
		if (this.closed) {
			throw new TransportException(TransportException.Kind.UNAVAILABLE, "the in-memory transport is closed", null);
		}
		return new Channel();
	}

	@Override
	public void probe() {
	}

	/**
	 * Returns the messages published to an exchange no local consumer is bound to.
	 * @return a snapshot, in publish order
	 */
	public List<OutboxMessage> unrouted() {
		return List.copyOf(this.unrouted);
	}

	/**
	 * Returns the messages a consumer gave up on, with the fault headers the inbox added.
	 * @param queue the consumer's queue (not its error queue)
	 * @return a snapshot, in the order they arrived
	 */
	public List<InboundMessage> errorQueue(String queue) {
		List<InboundMessage> faulted = this.errorQueues.get(queue + "_error");
		return (faulted != null) ? List.copyOf(faulted) : List.of();
	}

	/**
	 * Returns how many messages wait in the local queues, not yet taken by a consumer thread.
	 * @return the count
	 */
	public int queued() {
		return this.queues.values().stream().mapToInt(BlockingQueue::size).sum();
	}

	/**
	 * Forgets the unrouted and faulted messages kept so far.
	 */
	public void clear() {
		this.unrouted.clear();
		this.errorQueues.clear();
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		for (ReceiveEndpoint endpoint : this.endpoints.get()) {
			BlockingQueue<InboundMessage> queue = queue(endpoint.queue());
			for (ConsumerRegistration<?> consumer : endpoint.consumers()) {
				for (int i = 0; i < endpoint.concurrency(); i++) {
					Thread worker = new Thread(() -> consume(consumer, queue),
							"waybill-in-memory-" + consumer.queue() + "-" + i);
					worker.setDaemon(true);
					worker.start();
					this.workers.add(worker);
				}
			}
		}
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		for (Thread worker : this.workers) {
			try {
				worker.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		this.workers.clear();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return WaybillPhases.CONSUMERS;
	}

	@Override
	public void close() {
		this.closed = true;
		stop();
	}

	private BlockingQueue<InboundMessage> queue(String name) {
		return this.queues.computeIfAbsent(name, (n) -> new LinkedBlockingQueue<>());
	}

	private CompletableFuture<Void> route(OutboxMessage message) {
		if (this.closed) {
			return CompletableFuture.failedFuture(new TransportException(TransportException.Kind.UNAVAILABLE,
					"the in-memory transport is closed", null));
		}
		List<ReceiveEndpoint> endpoints = this.endpoints.get();
		InboundMessage inbound = inbound(message);
		if (message.destination().isEmpty()) {
			for (ReceiveEndpoint endpoint : endpoints) {
				if (endpoint.queue().equals(message.routingKey())) {
					queue(endpoint.queue()).add(inbound);
					return CompletableFuture.completedFuture(null);
				}
				if (endpoint.errorQueue().equals(message.routingKey())) {
					this.errorQueues.computeIfAbsent(endpoint.errorQueue(), (q) -> new CopyOnWriteArrayList<>()).add(inbound);
					return CompletableFuture.completedFuture(null);
				}
			}
			// The default exchange with mandatory: RabbitMQ returns a message for a queue that does not exist.
			return CompletableFuture.failedFuture(new TransportException(TransportException.Kind.MESSAGE,
					"unroutable: no queue '" + message.routingKey() + "' (in-memory transport)", null));
		}
		Set<String> bound = new LinkedHashSet<>();
		for (ReceiveEndpoint endpoint : endpoints) {
			boolean byType = endpoint.consumers().stream()
				.anyMatch((consumer) -> consumer.messageType().equals(message.destination()));
			if (byType || boundByExtraBinding(endpoint, message)) {
				bound.add(endpoint.queue());
			}
		}
		bound.forEach((queue) -> queue(queue).add(inbound));
		if (bound.isEmpty()) {
			this.unrouted.add(message);
		}
		return CompletableFuture.completedFuture(null);
	}

	private static boolean boundByExtraBinding(ReceiveEndpoint endpoint, OutboxMessage message) {
		for (EndpointBinding binding : endpoint.bindings()) {
			if (binding.exchange().equals(message.destination()) && (binding.routingKey().isEmpty()
					|| binding.routingKey().equals("#") || binding.routingKey().equals(message.routingKey()))) {
				return true;
			}
		}
		return false;
	}

	/** How many deliveries wait in a queue (tests of the routing). */
	int waiting(String queue) {
		BlockingQueue<InboundMessage> waiting = this.queues.get(queue);
		return (waiting != null) ? waiting.size() : 0;
	}

	/** The delivery as the RabbitMQ receive endpoint would read it. */
	private static InboundMessage inbound(OutboxMessage message) {
		Map<String, Object> headers = new LinkedHashMap<>(message.headers());
		if (message.conversationId() != null) {
			headers.putIfAbsent("waybill-conversation-id", message.conversationId());
		}
		if (message.sourceHost() != null) {
			headers.put("waybill-source-host", message.sourceHost());
		}
		return new InboundMessage(message.messageId().toString(), message.messageType(), message.contentType(), headers,
				message.body(), message.correlationId(), message.conversationId(), message.destination(),
				message.routingKey());
	}

	private void consume(ConsumerRegistration<?> consumer, BlockingQueue<InboundMessage> queue) {
		while (this.running) {
			InboundMessage message;
			try {
				message = queue.poll(100, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (message == null) {
				continue;
			}
			try {
				this.processor.get().process(consumer, message);
			}
			catch (UnrecordableDeliveryException ex) {
				this.errorQueues.computeIfAbsent(consumer.errorQueue(), (q) -> new CopyOnWriteArrayList<>()).add(message);
			}
			catch (RuntimeException ex) {
				// Nothing was recorded (the database is unavailable): back to the queue, as a broker requeues it.
				logger.warn("In-memory delivery of " + message + " to '" + consumer.queue() + "' failed, requeued: " + ex);
				try {
					Thread.sleep(REQUEUE_PAUSE_MILLIS);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					queue.add(message);
					return;
				}
				queue.add(message);
			}
		}
	}

	private final class Channel implements TransportChannel {

		private volatile boolean open = true;

		@Override
		public CompletableFuture<Void> publish(OutboxMessage message) {
			if (!this.open) {
				return CompletableFuture.failedFuture(new TransportException(TransportException.Kind.UNAVAILABLE,
						"the channel is closed", null));
			}
			return route(message);
		}

		@Override
		public boolean isOpen() {
			return this.open && !InMemoryTransport.this.closed;
		}

		@Override
		public void close() {
			this.open = false;
		}

	}

}
