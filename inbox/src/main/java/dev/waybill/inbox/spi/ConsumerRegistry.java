package dev.waybill.inbox.spi;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.kernel.MessageTypes;

/**
 * The consumers of an application grouped into {@linkplain ReceiveEndpoint receive endpoints}, one
 * per queue, in registration order. A queue may have several handlers, one per message type,
 * registered on its endpoint, which holds the queue's settings. A transport endpoint consumes each
 * queue and hands every delivery to the {@link InboxProcessor} with the registration
 * {@link #dispatch dispatch} picks. The inbox auto-configuration provides one holding every
 * {@link MessageHandler} bean; {@link #ofEndpoints(Collection)} makes one by hand.
 *
 * @since 0.1
 */
public final class ConsumerRegistry {

	private final Map<String, ReceiveEndpoint> receiveEndpoints;

	private final Map<String, List<ConsumerRegistration<?>>> byQueue = new LinkedHashMap<>();

	/** Message classes by type name: every registration's payload class, and subtypes found since. */
	private final Map<String, Class<?>> classes = new ConcurrentHashMap<>();

	/**
	 * How many registrations made for delivered subtypes are kept. Type names come from the
	 * senders: past this many (far more than an application's message types), each new one is
	 * made again for every delivery instead of growing the map without bound.
	 */
	static final int MAX_DERIVED = 1024;

	/**
	 * How many enclosing classes a type name's nested class is looked for in: a name with many dots
	 * would otherwise cost a class-loader miss per dot at every delivery.
	 */
	static final int MAX_NESTING = 4;

	/** Registrations made for a supertype handler and a delivered subtype, by queue and type. */
	private final Map<String, ConsumerRegistration<?>> derived = new ConcurrentHashMap<>();

	private ConsumerRegistry(Map<String, ReceiveEndpoint> receiveEndpoints) {
		this.receiveEndpoints = receiveEndpoints;
		receiveEndpoints.forEach((queue, endpoint) -> this.byQueue.put(queue, endpoint.consumers()));
		this.byQueue.values().forEach((list) -> list.forEach(
				(registration) -> this.classes.putIfAbsent(registration.messageType(), registration.payloadClass())));
	}

	/**
	 * Returns a registry of the given receive endpoints.
	 * @param endpoints the endpoints, each of a queue of its own and with at least one handler
	 * @return the registry
	 * @throws IllegalArgumentException when two endpoints consume one queue, or one has no handler
	 * @since 0.1
	 */
	public static ConsumerRegistry ofEndpoints(Collection<ReceiveEndpoint> endpoints) {
		Map<String, ReceiveEndpoint> byQueue = new LinkedHashMap<>();
		for (ReceiveEndpoint endpoint : endpoints) {
			if (endpoint.consumers().isEmpty()) {
				throw new IllegalArgumentException("The receive endpoint of queue '" + endpoint.queue()
						+ "' has no handler; register one with handle(...).");
			}
			ReceiveEndpoint other = byQueue.putIfAbsent(endpoint.queue(), endpoint);
			if (other != null) {
				throw new IllegalArgumentException("Two receive endpoints consume queue '" + endpoint.queue()
						+ "'. Register a queue's handlers on one ReceiveEndpoint.");
			}
		}
		return new ConsumerRegistry(byQueue);
	}

	/**
	 * Returns a registry of the given consumers, grouped into receive endpoints by queue: each
	 * queue's registrations as {@link ReceiveEndpoint#of} takes them.
	 * @param registrations the consumers; consumers sharing a queue form one receive endpoint and
	 * must take different message types and come from endpoints of the same settings
	 * @return the registry
	 * @throws IllegalArgumentException when two consumers of a queue take the same message type or
	 * come from endpoints of different settings
	 */
	public static ConsumerRegistry of(Collection<? extends ConsumerRegistration<?>> registrations) {
		Map<String, List<ConsumerRegistration<?>>> byQueue = new LinkedHashMap<>();
		for (ConsumerRegistration<?> registration : registrations) {
			byQueue.computeIfAbsent(registration.queue(), (queue) -> new ArrayList<>()).add(registration);
		}
		Map<String, ReceiveEndpoint> endpoints = new LinkedHashMap<>();
		byQueue.forEach((queue, consumers) -> endpoints.put(queue, ReceiveEndpoint.of(consumers)));
		return new ConsumerRegistry(endpoints);
	}

	/**
	 * Returns every consumer, in registration order, queue by queue.
	 * @return an unmodifiable list, empty when the application has no handler
	 */
	public List<ConsumerRegistration<?>> registrations() {
		return this.byQueue.values().stream().<ConsumerRegistration<?>>flatMap(List::stream).toList();
	}

	/**
	 * Returns the receive endpoints, one per queue, in registration order.
	 * @return an unmodifiable list, empty when the application has no handler
	 * @since 0.1
	 */
	public List<ReceiveEndpoint> receiveEndpoints() {
		return List.copyOf(this.receiveEndpoints.values());
	}

	/**
	 * Returns the receive endpoint of a queue.
	 * @param queue the queue name
	 * @return the endpoint, or empty when none consumes that queue
	 * @since 0.1
	 */
	public Optional<ReceiveEndpoint> receiveEndpoint(String queue) {
		return Optional.ofNullable(this.receiveEndpoints.get(queue));
	}

	/**
	 * Returns the receive endpoints' consumers: each queue with its consumers, in registration order.
	 * @return an unmodifiable map from queue name to its consumers (at least one each)
	 * @since 0.1
	 */
	public Map<String, List<ConsumerRegistration<?>>> endpoints() {
		return java.util.Collections.unmodifiableMap(this.byQueue);
	}

	/**
	 * Returns the first consumer of a queue.
	 * @param queue the queue name
	 * @return the consumer, or empty when none consumes that queue
	 */
	public Optional<ConsumerRegistration<?>> find(String queue) {
		List<ConsumerRegistration<?>> endpoint = this.byQueue.get(queue);
		return (endpoint != null) ? Optional.of(endpoint.get(0)) : Optional.empty();
	}

	/**
	 * Picks the one consumer of {@code queue} that handles a delivery, by its message type:
	 * <ol>
	 * <li>the consumer of exactly {@code messageType};</li>
	 * <li>else the first consumer, in registration order, of one of the message's supertypes, the
	 * {@link MessageTypes#SUPERTYPES_HEADER} list; it receives the message read into the subtype's
	 * class when the application has it (a payload class of any consumer, the class the
	 * {@link MessageTypes#CLASS_HEADER} names, or the class whose canonical name is the type name,
	 * each only when its message type name is the delivered one), else into its own payload class
	 * when that is concrete;</li>
	 * <li>else the first consumer: the {@link InboxProcessor} finds the type is not its own and moves
	 * the message to the error queue as poison.</li>
	 * </ol>
	 * One delivery runs one handler, so the inbox's consumer id, the queue, still makes every
	 * handler take effect once per message.
	 * @param queue the queue the message arrived on
	 * @param messageType the delivery's message type, possibly {@literal null}
	 * @param supertypes the delivery's supertype list, possibly {@literal null} or empty
	 * @return the consumer to hand the delivery to
	 * @throws IllegalArgumentException when no consumer consumes {@code queue}
	 * @since 0.1
	 */
	public ConsumerRegistration<?> dispatch(String queue, @Nullable String messageType, @Nullable String supertypes) {
		return dispatch(queue, messageType, supertypes, null);
	}

	/**
	 * Picks the one consumer of {@code queue} that handles a delivery, as
	 * {@link #dispatch(String, String, String)}, using the delivery's
	 * {@link MessageTypes#CLASS_HEADER class hint} to find the subtype's class.
	 * @param queue the queue the message arrived on
	 * @param messageType the delivery's message type, possibly {@literal null}
	 * @param supertypes the delivery's supertype list, possibly {@literal null} or empty
	 * @param classHint the binary name of the message's class, possibly {@literal null}
	 * @return the consumer to hand the delivery to
	 * @throws IllegalArgumentException when no consumer consumes {@code queue}
	 * @since 0.1
	 */
	public ConsumerRegistration<?> dispatch(String queue, @Nullable String messageType, @Nullable String supertypes,
			@Nullable String classHint) {
		List<ConsumerRegistration<?>> endpoint = this.byQueue.get(queue);
		if (endpoint == null) {
			throw new IllegalArgumentException("No consumer consumes queue '" + queue + "'");
		}
		if (messageType == null) {
			return endpoint.get(0);
		}
		for (ConsumerRegistration<?> registration : endpoint) {
			if (registration.messageType().equals(messageType)) {
				return registration;
			}
		}
		if (supertypes != null && !supertypes.isEmpty()) {
			List<String> names = List.of(supertypes.split(","));
			for (String supertype : names) {
				for (ConsumerRegistration<?> registration : endpoint) {
					if (registration.messageType().equals(supertype.trim())) {
						ConsumerRegistration<?> forSubtype = forSubtype(registration, messageType, classHint);
						if (forSubtype != null) {
							return forSubtype;
						}
					}
				}
			}
		}
		return endpoint.get(0);
	}

	private @Nullable ConsumerRegistration<?> forSubtype(ConsumerRegistration<?> registration, String messageType,
			@Nullable String classHint) {
		String key = registration.queue() + '\n' + messageType;
		ConsumerRegistration<?> known = this.derived.get(key);
		if (known != null) {
			return known;
		}
		Class<?> subtype = resolve(messageType, registration.payloadClass(), classHint);
		if (subtype == null) {
			Class<?> own = registration.payloadClass();
			if (own.isInterface() || Modifier.isAbstract(own.getModifiers())) {
				return null;
			}
			subtype = own;
		}
		ConsumerRegistration<?> made = registration.forSubtype(messageType, subtype);
		if (this.derived.size() < MAX_DERIVED) {
			this.derived.putIfAbsent(key, made);
		}
		return made;
	}

	private @Nullable Class<?> resolve(String messageType, Class<?> supertype, @Nullable String classHint) {
		Class<?> known = this.classes.get(messageType);
		if (known == null && classHint != null) {
			known = byName(classHint, messageType, supertype.getClassLoader());
		}
		if (known == null) {
			known = byCanonicalName(messageType, supertype.getClassLoader());
			if (known != null) {
				this.classes.putIfAbsent(messageType, known);
			}
		}
		return (known != null && supertype.isAssignableFrom(known)) ? known : null;
	}

	/** Loads the class of a binary name when its message type name is {@code messageType}. */
	private static @Nullable Class<?> byName(String name, String messageType, @Nullable ClassLoader loader) {
		try {
			Class<?> found = Class.forName(name, false, loader);
			return messageType.equals(MessageTypes.nameOf(found)) ? found : null;
		}
		catch (ClassNotFoundException | LinkageError | RuntimeException ex) {
			return null;
		}
	}

	/** Finds the class whose canonical name, and message type name, is {@code name}; nested ones too. */
	private static @Nullable Class<?> byCanonicalName(String name, @Nullable ClassLoader loader) {
		String binary = name;
		for (int nested = 0;; nested++) {
			try {
				Class<?> found = Class.forName(binary, false, loader);
				return name.equals(MessageTypes.nameOf(found)) ? found : null;
			}
			catch (ClassNotFoundException | LinkageError | RuntimeException ex) {
				int dot = binary.lastIndexOf('.');
				if (dot < 0 || nested == MAX_NESTING) {
					return null;
				}
				binary = binary.substring(0, dot) + '$' + binary.substring(dot + 1);
			}
		}
	}

	/** Returns how many registrations made for delivered subtypes are kept, for tests. */
	int derivedCount() {
		return this.derived.size();
	}

	@Override
	public String toString() {
		return "ConsumerRegistry" + this.byQueue;
	}

}
