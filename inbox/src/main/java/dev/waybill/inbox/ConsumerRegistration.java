package dev.waybill.inbox;

import java.lang.reflect.Type;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.spi.ConsumerRegistry;

/**
 * A {@link MessageHandler} registered on a {@link ReceiveEndpoint}: the message type it takes, read
 * into its payload type, on the endpoint's queue, and what the {@link InboxProcessor} needs to handle
 * its deliveries. The queue name is also the consumer id in the inbox. The queue's settings live on
 * the endpoint ({@link ReceiveEndpoint#concurrency()} and the others); the registration refers to
 * them, and reads the failure handling the inbox applies to this handler's deliveries
 * ({@link #retry()}, {@link #neverRetry()}, {@link #ignore()}) from them.
 * <p>
 * The inbox auto-configuration registers every {@code MessageHandler} bean on the endpoint of its
 * queue; without Spring, register handlers with {@link ReceiveEndpoint#handle}, or make a
 * registration on an endpoint of the defaults with {@link #of}.
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

	/** A handler registered on the endpoint of {@code queue} and {@code settings}. */
	static <T> ConsumerRegistration<T> on(String queue, ConsumedType type, MessageHandler<T> handler,
			EndpointSettings settings) {
		Objects.requireNonNull(handler, "handler must not be null");
		return new ConsumerRegistration<>(queue, type, handler, settings);
	}

	/** This handler registered on an endpoint of the same queue with other settings. */
	ConsumerRegistration<T> on(EndpointSettings settings) {
		return new ConsumerRegistration<>(this.queue, this.type, this.handler, settings);
	}

	/** The settings of the endpoint this handler is registered on. */
	EndpointSettings settings() {
		return this.settings;
	}

	/**
	 * Registers a handler for the messages of type {@code payloadClass} on an endpoint of
	 * {@code queue} with the defaults of {@link ReceiveEndpoint#on}.
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
	 * {@code messageClass} on an endpoint of {@code queue} with the defaults of
	 * {@link ReceiveEndpoint#on}: its queue is bound to the fault exchange
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
	 * Returns the retry policy of the endpoint this handler is registered on.
	 * @return the policy, or {@literal null} for the inbox processor's
	 * @since 0.1
	 */
	public @Nullable EndpointRetry retry() {
		return this.settings.retry();
	}

	/**
	 * Returns the exceptions the endpoint this handler is registered on never retries.
	 * @return an unmodifiable list, empty by default
	 * @since 0.1
	 */
	public List<Class<? extends Throwable>> neverRetry() {
		return this.settings.neverRetry();
	}

	/**
	 * Returns the exceptions the endpoint this handler is registered on ignores.
	 * @return an unmodifiable list, empty by default
	 * @since 0.1
	 */
	public List<Class<? extends Throwable>> ignore() {
		return this.settings.ignore();
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

	@Override
	public String toString() {
		return "ConsumerRegistration[queue=" + this.queue + ", messageType=" + this.type.messageType() + ", handler="
				+ this.handler.getClass().getName() + this.settings.describe() + "]";
	}

}
