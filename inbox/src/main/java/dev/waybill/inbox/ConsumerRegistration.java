package dev.waybill.inbox;

import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.spi.ConsumerRegistry;

/**
 * A {@link MessageHandler} bound to its queue: what a transport endpoint needs to consume the queue
 * and what the {@link InboxProcessor} needs to handle its deliveries. The queue name is also the
 * consumer id in the inbox. Several registrations, one per message type, may share a queue: they
 * form one {@link ReceiveEndpoint}, and must then agree on its settings (concurrency, prefetch, queue
 * arguments, retry, exception filters, extra bindings; see {@link ReceiveEndpoint#of}), which
 * transports read from the endpoint.
 * Immutable; the {@code with*} methods return changed copies.
 * <p>
 * The inbox auto-configuration registers every {@code MessageHandler} bean in the
 * {@link ConsumerRegistry}; without Spring, make one by hand:
 * <pre class="code">
 * ConsumerRegistration&lt;OrderPlaced&gt; charge = ConsumerRegistration
 *     .of("charge-card", OrderPlaced.class, new ChargeCardHandler())
 *     .withConcurrency(4)
 *     .withQueueArguments(Map.of("x-queue-type", "quorum"));
 * </pre>
 *
 * @param <T> the message type
 * @since 0.1
 */
public final class ConsumerRegistration<T> {

	/** The longest queue name, so that its error queue ({@code <queue>_error}) fits AMQP's 255. */
	public static final int MAX_QUEUE_LENGTH = 249;

	private final String queue;

	private final ConsumedType type;

	private final MessageHandler<T> handler;

	private final EndpointSettings settings;

	private ConsumerRegistration(String queue, ConsumedType type, MessageHandler<T> handler, EndpointSettings settings) {
		this.queue = queue;
		this.type = type;
		this.handler = handler;
		this.settings = settings;
	}

	private ConsumerRegistration<T> with(EndpointSettings settings) {
		return new ConsumerRegistration<>(this.queue, this.type, this.handler, settings);
	}

	/** A handler registered on the endpoint of {@code queue} and {@code settings}. */
	static <T> ConsumerRegistration<T> on(String queue, ConsumedType type, MessageHandler<T> handler,
			EndpointSettings settings) {
		Objects.requireNonNull(handler, "handler must not be null");
		return new ConsumerRegistration<>(queue, type, handler, settings);
	}

	/** This handler registered on an endpoint of the same queue with other settings. */
	ConsumerRegistration<T> on(EndpointSettings settings) {
		return with(settings);
	}

	/** The settings of the endpoint this handler is registered on. */
	EndpointSettings settings() {
		return this.settings;
	}

	/**
	 * Registers a handler for the messages of type {@code payloadClass} on {@code queue}, with
	 * concurrency {@value ReceiveEndpoint#DEFAULT_CONCURRENCY}, prefetch {@value ReceiveEndpoint#DEFAULT_PREFETCH} and no queue
	 * arguments.
	 * @param <T> the message type
	 * @param queue the queue, also the consumer id; see {@link #queueNameProblem(String)}
	 * @param payloadClass the class the bodies are read into; its message type name (see
	 * {@link dev.waybill.outbox.MessageType}) is the only type the consumer accepts
	 * @param handler the handler
	 * @return the registration
	 * @throws IllegalArgumentException when the queue name is invalid
	 * @throws dev.waybill.outbox.InvalidMessageException when the class has no valid message type name
	 */
	public static <T> ConsumerRegistration<T> of(String queue, Class<T> payloadClass, MessageHandler<T> handler) {
		QueueNames.requireValid(queue);
		ConsumedType type = ConsumedType.of(payloadClass);
		Objects.requireNonNull(handler, "handler must not be null");
		return new ConsumerRegistration<>(queue, type, handler, EndpointSettings.DEFAULTS);
	}

	/**
	 * Registers a handler for the {@link Fault fault events} of the messages of type
	 * {@code messageClass}: its queue is bound to the fault exchange
	 * {@code fault:<message type>} (see {@link Fault#typeName(String)}), and the bodies are read
	 * into {@code Fault<M>} with the failed message as an {@code M}.
	 * @param <M> the type of the messages whose faults are handled
	 * @param queue the queue, also the consumer id; see {@link #queueNameProblem(String)}
	 * @param messageClass the class of the failed messages
	 * @param handler the handler
	 * @return the registration
	 * @throws IllegalArgumentException when the queue name is invalid, or the fault's type name too
	 * long
	 * @since 0.1
	 */
	public static <M> ConsumerRegistration<Fault<M>> ofFault(String queue, Class<M> messageClass,
			MessageHandler<Fault<M>> handler) {
		QueueNames.requireValid(queue);
		Objects.requireNonNull(messageClass, "messageClass must not be null");
		Objects.requireNonNull(handler, "handler must not be null");
		return new ConsumerRegistration<>(queue, ConsumedType.ofFault(messageClass), handler, EndpointSettings.DEFAULTS);
	}

	/**
	 * Says what is wrong with {@code queue} as a consumer's queue name.
	 * @param queue the candidate
	 * @return the problem, or {@literal null} when the name is valid
	 */
	public static @Nullable String queueNameProblem(@Nullable String queue) {
		return QueueNames.problem(queue);
	}

	/**
	 * Returns a copy that handles this many messages at once.
	 * @param concurrency at least 1
	 * @return the changed registration
	 */
	public ConsumerRegistration<T> withConcurrency(int concurrency) {
		return with(this.settings.withConcurrency(concurrency));
	}

	/**
	 * Returns a copy with this prefetch per handling thread.
	 * @param prefetch at least 1
	 * @return the changed registration
	 */
	public ConsumerRegistration<T> withPrefetch(int prefetch) {
		return with(this.settings.withPrefetch(prefetch));
	}

	/**
	 * Returns a copy that declares its queue with these arguments, e.g. {@code x-queue-type: quorum}.
	 * @param queueArguments the arguments; values are strings, numbers or booleans
	 * @return the changed registration
	 */
	public ConsumerRegistration<T> withQueueArguments(Map<String, ?> queueArguments) {
		return with(this.settings.withQueueArguments(queueArguments));
	}

	/**
	 * Returns a copy with a retry policy of its own instead of the inbox processor's
	 * ({@code waybill.inbox.retry.*}).
	 * @param retry the redelivery backoff, maximum attempts and in-process retries, or
	 * {@literal null} for the processor's
	 * @return the changed registration
	 * @since 0.1
	 */
	public ConsumerRegistration<T> withRetry(@Nullable EndpointRetry retry) {
		return with(this.settings.withRetry(retry));
	}

	/**
	 * Returns a copy that never retries a handler failure that is an instance of one of these
	 * exceptions (or has one in its cause chain): the message goes to the error queue at once.
	 * @param exceptions the exception classes
	 * @return the changed registration
	 * @since 0.1
	 */
	public ConsumerRegistration<T> withNeverRetry(List<Class<? extends Throwable>> exceptions) {
		return with(this.settings.withNeverRetry(exceptions));
	}

	/**
	 * Returns a copy that ignores a handler failure that is an instance of one of these exceptions
	 * (or has one in its cause chain): the handler's work rolls back, the message is acknowledged
	 * and its inbox row is marked processed with the exception as a note, so it is not handled again.
	 * Checked before {@link #withNeverRetry never-retry}.
	 * @param exceptions the exception classes
	 * @return the changed registration
	 * @since 0.1
	 */
	public ConsumerRegistration<T> withIgnore(List<Class<? extends Throwable>> exceptions) {
		return with(this.settings.withIgnore(exceptions));
	}

	/**
	 * Returns a copy whose queue is also bound to these exchanges, besides its message type's.
	 * @param bindings the extra bindings
	 * @return the changed registration
	 * @since 0.1
	 */
	public ConsumerRegistration<T> withBindings(List<EndpointBinding> bindings) {
		return with(this.settings.withBindings(bindings));
	}

	/**
	 * Returns a copy for one subtype of this consumer's message type, as
	 * {@link ConsumerRegistry#dispatch} hands it a delivery of the subtype: same queue, handler and
	 * settings; {@code messageType} accepted, bodies read into {@code subtype}.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" }) // the handler takes T, a supertype of the subtype
	public ConsumerRegistration<?> forSubtype(String messageType, Class<?> subtype) {
		return new ConsumerRegistration(this.queue, this.type.forSubtype(messageType, subtype), this.handler,
				this.settings);
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
	 * @return the changed registration
	 * @since 0.1
	 */
	public ConsumerRegistration<T> withPartitionByOrderingKey(boolean partitionByOrderingKey) {
		return with(this.settings.withPartitionByOrderingKey(partitionByOrderingKey));
	}

	/**
	 * Returns whether deliveries are partitioned by ordering key onto the handling threads.
	 * @return whether they are; true by default
	 * @since 0.1
	 */
	public boolean partitionByOrderingKey() {
		return this.settings.partitionByOrderingKey();
	}

	/**
	 * Returns the endpoint's own retry policy.
	 * @return the policy, or {@literal null} for the inbox processor's
	 * @since 0.1
	 */
	public @Nullable EndpointRetry retry() {
		return this.settings.retry();
	}

	/**
	 * Returns the exceptions never retried.
	 * @return an unmodifiable list, empty by default
	 * @since 0.1
	 */
	public List<Class<? extends Throwable>> neverRetry() {
		return this.settings.neverRetry();
	}

	/**
	 * Returns the exceptions ignored.
	 * @return an unmodifiable list, empty by default
	 * @since 0.1
	 */
	public List<Class<? extends Throwable>> ignore() {
		return this.settings.ignore();
	}

	/**
	 * Returns the extra bindings of the queue.
	 * @return an unmodifiable list, empty by default
	 * @since 0.1
	 */
	public List<EndpointBinding> bindings() {
		return this.settings.bindings();
	}

	/**
	 * Returns the queue this consumer consumes.
	 * @return the queue name
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * Returns the consumer id, the key of this consumer's rows in the inbox: the queue name, shared
	 * by every handler of the queue's receive endpoint. A delivery runs exactly one handler (see
	 * {@link ConsumerRegistry#dispatch}), so each handler still takes effect once per message.
	 * @return the consumer id
	 */
	public String consumerId() {
		return this.queue;
	}

	/**
	 * Returns the queue that receives the messages this consumer gives up on: {@code <queue>_error}.
	 * @return the error queue name
	 */
	public String errorQueue() {
		return this.queue + QueueNames.ERROR_QUEUE_SUFFIX;
	}

	/**
	 * Returns the message type name this consumer accepts; any other type is a fault.
	 * @return the message type name
	 */
	public String messageType() {
		return this.type.messageType();
	}

	/**
	 * Returns the payload class, the class message bodies are read into.
	 * @return the payload class
	 */
	@SuppressWarnings("unchecked") // of(...) takes a Class<T>; ofFault's Fault.class stands for Fault<M>
	public Class<T> payloadClass() {
		return (Class<T>) this.type.payloadClass();
	}

	/**
	 * Returns the type message bodies are read into: the {@link #payloadClass() payload class}, or
	 * for a {@link #ofFault fault handler} the parameterized {@code Fault<M>}.
	 * @return the payload type
	 * @since 0.1
	 */
	public Type payloadType() {
		return this.type.payloadType();
	}

	/**
	 * Returns the handler.
	 * @return the handler
	 */
	public MessageHandler<T> handler() {
		return this.handler;
	}

	/**
	 * Returns how many messages of the queue are handled at once.
	 * @return the concurrency, at least 1
	 */
	public int concurrency() {
		return this.settings.concurrency();
	}

	/**
	 * Returns how many unacknowledged messages the broker sends ahead to each handling thread.
	 * @return the prefetch, at least 1
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

	@Override
	public String toString() {
		return "ConsumerRegistration[queue=" + this.queue + ", messageType=" + this.type.messageType() + ", handler="
				+ this.handler.getClass().getName() + this.settings.describe() + "]";
	}

}
