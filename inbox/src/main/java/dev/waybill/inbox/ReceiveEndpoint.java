package dev.waybill.inbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A receive endpoint: one queue, the settings a transport consumes it with (concurrency, prefetch,
 * queue arguments, extra bindings, partitioning, retry, exception filters), held once here, and its
 * handlers, one per message type, registered on it. Immutable; the {@code with*} and
 * {@code handle*} methods return changed copies.
 * <p>
 * The inbox auto-configuration makes one per queue from {@code waybill.inbox.endpoints.<queue>.*}
 * and the handlers' {@link Consumer @Consumer}; without Spring, make one by hand:
 * <pre class="code">
 * ReceiveEndpoint billing = ReceiveEndpoint.on("billing")
 *     .withConcurrency(4)
 *     .withQueueArguments(Map.of("x-queue-type", "quorum"))
 *     .handle(OrderPlaced.class, new ChargeCardHandler())
 *     .handle(OrderCancelled.class, new RefundHandler());
 * </pre>
 *
 * @since 0.1
 */
public final class ReceiveEndpoint {

	/** Messages of one queue handled at once unless set otherwise. */
	public static final int DEFAULT_CONCURRENCY = 4;

	/**
	 * Unacknowledged messages sent ahead to each handling thread unless set otherwise: twice the
	 * default batch ({@code waybill.inbox.batch.max-size} 16), so that the next batch is on its way
	 * while one is handled.
	 */
	public static final int DEFAULT_PREFETCH = 32;

	private final String queue;

	private final EndpointSettings settings;

	private final List<ConsumerRegistration<?>> consumers;

	private ReceiveEndpoint(String queue, EndpointSettings settings, List<ConsumerRegistration<?>> consumers) {
		this.queue = queue;
		this.settings = settings;
		this.consumers = consumers;
	}

	/**
	 * Returns an endpoint of {@code queue} with no handlers yet, concurrency
	 * {@value #DEFAULT_CONCURRENCY}, prefetch {@value #DEFAULT_PREFETCH}, no queue arguments, no extra
	 * bindings, partitioned by ordering key and with the inbox processor's retry policy.
	 * @param queue the queue, also the consumer id; see {@link ConsumerRegistration#queueNameProblem}
	 * @return the endpoint
	 * @throws IllegalArgumentException when the queue name is invalid
	 */
	public static ReceiveEndpoint on(String queue) {
		QueueNames.requireValid(queue);
		return new ReceiveEndpoint(queue, EndpointSettings.DEFAULTS, List.of());
	}

	/**
	 * Returns the endpoint of the given registrations: those made on one endpoint
	 * ({@link #consumers()}), or made alone with {@link ConsumerRegistration#of}, each on an endpoint
	 * of the defaults.
	 * @param consumers its handlers' registrations, at least one, all of one queue and one endpoint's
	 * settings, each of a message type of its own
	 * @return the endpoint
	 * @throws IllegalArgumentException when two registrations take the same message type or were
	 * registered on endpoints of different settings
	 */
	public static ReceiveEndpoint of(List<? extends ConsumerRegistration<?>> consumers) {
		if (consumers.isEmpty()) {
			throw new IllegalArgumentException("A receive endpoint has at least one consumer");
		}
		ConsumerRegistration<?> first = consumers.get(0);
		ReceiveEndpoint endpoint = new ReceiveEndpoint(first.queue(), first.settings(), List.of());
		for (ConsumerRegistration<?> registration : consumers) {
			if (!registration.queue().equals(endpoint.queue)) {
				throw new IllegalArgumentException("A receive endpoint has one queue: " + first + " and "
						+ registration);
			}
			if (!registration.settings().equals(endpoint.settings)) {
				throw new IllegalArgumentException("The consumers of queue '" + endpoint.queue
						+ "' were registered on receive endpoints of different settings: " + first + " and "
						+ registration + ". Register a queue's handlers on one ReceiveEndpoint.");
			}
			endpoint = endpoint.add(registration);
		}
		return endpoint;
	}

	private ReceiveEndpoint with(EndpointSettings settings) {
		return new ReceiveEndpoint(this.queue, settings,
				this.consumers.stream().<ConsumerRegistration<?>>map((consumer) -> consumer.on(settings)).toList());
	}

	private ReceiveEndpoint add(ConsumerRegistration<?> registration) {
		for (ConsumerRegistration<?> other : this.consumers) {
			if (other.messageType().equals(registration.messageType())) {
				throw new IllegalArgumentException("Two consumers of queue '" + this.queue + "' take message type '"
						+ registration.messageType() + "': " + other + " and " + registration
						+ ". A receive endpoint has one handler per message type.");
			}
		}
		List<ConsumerRegistration<?>> consumers = new ArrayList<>(this.consumers);
		consumers.add(registration);
		return new ReceiveEndpoint(this.queue, this.settings, List.copyOf(consumers));
	}

	/**
	 * Returns a copy with a handler for the messages of type {@code payloadClass}.
	 * @param <T> the message type
	 * @param payloadClass the class the bodies are read into; its message type name (see
	 * {@link dev.waybill.outbox.MessageType}) is the type the handler takes
	 * @param handler the handler
	 * @return the changed endpoint
	 * @throws IllegalArgumentException when the endpoint already has a handler of that type
	 * @throws dev.waybill.outbox.InvalidMessageException when the class has no valid message type name
	 */
	public <T> ReceiveEndpoint handle(Class<T> payloadClass, MessageHandler<T> handler) {
		return add(ConsumerRegistration.on(this.queue, ConsumedType.of(payloadClass), handler, this.settings));
	}

	/**
	 * Returns a copy with a handler for the {@link Fault fault events} of the messages of type
	 * {@code messageClass}; see {@link ConsumerRegistration#ofFault}.
	 * @param <M> the type of the messages whose faults are handled
	 * @param messageClass the class of the failed messages
	 * @param handler the handler
	 * @return the changed endpoint
	 * @throws IllegalArgumentException when the endpoint already has a handler of that type, or the
	 * fault's type name is too long
	 */
	public <M> ReceiveEndpoint handleFault(Class<M> messageClass, MessageHandler<Fault<M>> handler) {
		Objects.requireNonNull(messageClass, "messageClass must not be null");
		return add(ConsumerRegistration.on(this.queue, ConsumedType.ofFault(messageClass), handler, this.settings));
	}

	/**
	 * Returns a copy that handles this many messages at once.
	 * @param concurrency at least 1
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withConcurrency(int concurrency) {
		return with(this.settings.withConcurrency(concurrency));
	}

	/**
	 * Returns a copy with this prefetch per handling thread.
	 * @param prefetch at least 1
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withPrefetch(int prefetch) {
		return with(this.settings.withPrefetch(prefetch));
	}

	/**
	 * Returns a copy that declares its queue with these arguments, e.g. {@code x-queue-type: quorum}.
	 * @param queueArguments the arguments; values are strings, numbers or booleans
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withQueueArguments(Map<String, ?> queueArguments) {
		return with(this.settings.withQueueArguments(queueArguments));
	}

	/**
	 * Returns a copy whose queue is also bound to these exchanges, besides its handlers' message
	 * types'.
	 * @param bindings the extra bindings
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withBindings(List<EndpointBinding> bindings) {
		return with(this.settings.withBindings(bindings));
	}

	/**
	 * Returns a copy that does or does not partition deliveries by their ordering key (the
	 * {@value dev.waybill.outbox.PublishOptions#ORDERING_KEY_HEADER} header); on by default. When on
	 * and the concurrency is above 1, the endpoint consumes the queue on one channel (prefetch
	 * times concurrency) and hands each delivery to one of {@code concurrency} workers by its key's
	 * hash: the deliveries of one key are handled one at a time, in the order the queue delivers
	 * them, different keys in parallel; deliveries without a key go to the workers in turn. When
	 * off, each unit of concurrency consumes on a channel of its own and a key's deliveries may be
	 * handled concurrently and out of order. See the README's "Ordering".
	 * @param partitionByOrderingKey whether to partition
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withPartitionByOrderingKey(boolean partitionByOrderingKey) {
		return with(this.settings.withPartitionByOrderingKey(partitionByOrderingKey));
	}

	/**
	 * Returns a copy whose messages are spread over {@code partitions} broker queues by their
	 * ordering key, so that several instances of a service share an ordered queue's keys: a key
	 * always lands on one partition, each partition is consumed by one instance at a time, and the
	 * instances share the partitions between them, taking over those of an instance that leaves.
	 * 1 (the default) is one queue. The transport decides how: see the README's "Ordering" for
	 * RabbitMQ's, which needs the broker's consistent-hash exchange and
	 * {@link #withPartitionByOrderingKey partitioning by ordering key}.
	 * @param partitions the number of partitions, at least 1
	 * @return the changed endpoint
	 * @throws IllegalArgumentException when {@code partitions} is below 1
	 */
	public ReceiveEndpoint withPartitions(int partitions) {
		return with(this.settings.withPartitions(partitions));
	}

	/**
	 * Returns a copy with a retry policy of its own instead of the inbox processor's
	 * ({@code waybill.inbox.retry.*}).
	 * @param retry the redelivery backoff, maximum attempts and in-process retries, or
	 * {@literal null} for the processor's
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withRetry(@Nullable EndpointRetry retry) {
		return with(this.settings.withRetry(retry));
	}

	/**
	 * Returns a copy that never retries a handler failure that is an instance of one of these
	 * exceptions (or has one in its cause chain): the message goes to the error queue at once.
	 * @param exceptions the exception classes
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withNeverRetry(List<Class<? extends Throwable>> exceptions) {
		return with(this.settings.withNeverRetry(exceptions));
	}

	/**
	 * Returns a copy that ignores a handler failure that is an instance of one of these exceptions
	 * (or has one in its cause chain): the handler's work rolls back, the message is acknowledged
	 * and its inbox row is marked processed with the exception as a note, so it is not handled again.
	 * Checked before {@link #withNeverRetry never-retry}.
	 * @param exceptions the exception classes
	 * @return the changed endpoint
	 */
	public ReceiveEndpoint withIgnore(List<Class<? extends Throwable>> exceptions) {
		return with(this.settings.withIgnore(exceptions));
	}

	/**
	 * Returns the queue.
	 * @return the queue name, also the consumer id in the inbox
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * Returns where the endpoint's faulted messages go.
	 * @return the queue's name with {@code _error} appended
	 */
	public String errorQueue() {
		return this.queue + QueueNames.ERROR_QUEUE_SUFFIX;
	}

	/**
	 * Returns its handlers' registrations, one per message type, in registration order.
	 * @return an unmodifiable list, empty before the first {@code handle}
	 */
	public List<ConsumerRegistration<?>> consumers() {
		return this.consumers;
	}

	/**
	 * Returns how many of the queue's messages are handled at once.
	 * @return at least 1
	 */
	public int concurrency() {
		return this.settings.concurrency();
	}

	/**
	 * Returns how many messages the broker sends ahead of each consuming thread.
	 * @return at least 1
	 */
	public int prefetch() {
		return this.settings.prefetch();
	}

	/**
	 * Returns the arguments the queue is declared with.
	 * @return an unmodifiable map, empty for a classic queue with the broker's defaults
	 */
	public Map<String, Object> queueArguments() {
		return this.settings.queueArguments();
	}

	/**
	 * Returns the extra bindings of the queue, beside those to its handlers' message types.
	 * @return an unmodifiable list, empty by default
	 */
	public List<EndpointBinding> bindings() {
		return this.settings.bindings();
	}

	/**
	 * Tells whether the endpoint is partitioned by ordering key: the deliveries of one key are handled
	 * one after another, in order, different keys in parallel.
	 * @return whether it is partitioned by ordering key; true by default
	 */
	public boolean partitionByOrderingKey() {
		return this.settings.partitionByOrderingKey();
	}

	/**
	 * Returns how many broker queues the endpoint's messages are spread over by ordering key.
	 * @return at least 1; 1 by default
	 */
	public int partitions() {
		return this.settings.partitions();
	}

	/**
	 * Returns the endpoint's retry policy.
	 * @return the policy, or {@literal null} for the inbox processor's
	 */
	public @Nullable EndpointRetry retry() {
		return this.settings.retry();
	}

	/**
	 * Returns the exceptions that fault a message at once.
	 * @return an unmodifiable list, empty by default
	 */
	public List<Class<? extends Throwable>> neverRetry() {
		return this.settings.neverRetry();
	}

	/**
	 * Returns the exceptions that drop a message as handled.
	 * @return an unmodifiable list, empty by default
	 */
	public List<Class<? extends Throwable>> ignore() {
		return this.settings.ignore();
	}

	@Override
	public String toString() {
		return "ReceiveEndpoint[" + this.queue + ", " + this.consumers.size() + " consumers]";
	}

}
