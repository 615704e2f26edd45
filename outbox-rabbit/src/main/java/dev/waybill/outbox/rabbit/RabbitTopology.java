package dev.waybill.outbox.rabbit;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

/**
 * Exchanges, queues and bindings an application needs besides those Waybill declares for message
 * types and receive endpoints: the targets of {@code send}, topic exchanges consumed by routing-key
 * pattern, queues of other tools. Declared, all on one channel, by the receive endpoint on every
 * connection before its own queues, and by the transport before its first publication after start
 * and after every recovery. Declarations are idempotent; one that conflicts with what the broker
 * has (another exchange type, other queue arguments) fails with the broker's reason.
 * Immutable; the {@code with*} methods return changed copies.
 *
 * @since 0.1
 */
public final class RabbitTopology {

	/** The exchange types RabbitMQ knows. */
	static final java.util.Set<String> EXCHANGE_TYPES = java.util.Set.of("fanout", "topic", "direct", "headers");

	/** No declarations. */
	public static final RabbitTopology EMPTY = new RabbitTopology(List.of(), List.of(), List.of());

	private final List<Exchange> exchanges;

	private final List<Queue> queues;

	private final List<Binding> bindings;

	private RabbitTopology(List<Exchange> exchanges, List<Queue> queues, List<Binding> bindings) {
		this.exchanges = exchanges;
		this.queues = queues;
		this.bindings = bindings;
	}

	/**
	 * Returns a copy that also declares this exchange.
	 * @param exchange the exchange
	 * @return the changed topology
	 */
	public RabbitTopology withExchange(Exchange exchange) {
		return new RabbitTopology(append(this.exchanges, exchange), this.queues, this.bindings);
	}

	/**
	 * Returns a copy that also declares this queue.
	 * @param queue the queue
	 * @return the changed topology
	 */
	public RabbitTopology withQueue(Queue queue) {
		return new RabbitTopology(this.exchanges, append(this.queues, queue), this.bindings);
	}

	/**
	 * Returns a copy that also declares this binding.
	 * @param binding the binding
	 * @return the changed topology
	 */
	public RabbitTopology withBinding(Binding binding) {
		return new RabbitTopology(this.exchanges, this.queues, append(this.bindings, binding));
	}

	/**
	 * Returns the exchanges.
	 * @return an unmodifiable list
	 */
	public List<Exchange> exchanges() {
		return this.exchanges;
	}

	/**
	 * Returns the queues.
	 * @return an unmodifiable list
	 */
	public List<Queue> queues() {
		return this.queues;
	}

	/**
	 * Returns the bindings.
	 * @return an unmodifiable list
	 */
	public List<Binding> bindings() {
		return this.bindings;
	}

	/**
	 * Tells whether there is nothing to declare.
	 * @return whether the topology is empty
	 */
	public boolean isEmpty() {
		return this.exchanges.isEmpty() && this.queues.isEmpty() && this.bindings.isEmpty();
	}

	/**
	 * Declares everything on a channel of its own, exchanges first, then queues, then bindings.
	 * @param connection the connection
	 * @throws IOException when the broker refuses a declaration (the channel is closed then)
	 */
	public void declare(Connection connection) throws IOException {
		if (isEmpty()) {
			return;
		}
		Channel channel = connection.createChannel();
		try {
			declare(channel);
		}
		finally {
			try {
				channel.abort();
			}
			catch (IOException | RuntimeException ex) {
				// closed anyway
			}
		}
	}

	/**
	 * Declares the exchanges, queues and bindings on a channel (Waybill does it at start-up and after
	 * every connection recovery).
	 * @param channel the channel to declare on
	 * @throws IOException when the broker refuses a declaration
	 */
	public void declare(Channel channel) throws IOException {
		for (Exchange exchange : this.exchanges) {
			channel.exchangeDeclare(exchange.name(), exchange.type(), exchange.durable(), false, exchange.arguments());
		}
		for (Queue queue : this.queues) {
			channel.queueDeclare(queue.name(), queue.durable(), false, false, queue.arguments());
		}
		for (Binding binding : this.bindings) {
			if (binding.toExchange()) {
				channel.exchangeBind(binding.destination(), binding.exchange(), binding.routingKey(), binding.arguments());
			}
			else {
				channel.queueBind(binding.destination(), binding.exchange(), binding.routingKey(), binding.arguments());
			}
		}
	}

	@Override
	public String toString() {
		return "RabbitTopology[exchanges=" + this.exchanges + ", queues=" + this.queues + ", bindings=" + this.bindings
				+ "]";
	}

	private static <T> List<T> append(List<T> list, T item) {
		List<T> copy = new ArrayList<>(list);
		copy.add(Objects.requireNonNull(item, "item must not be null"));
		return Collections.unmodifiableList(copy);
	}

	private static Map<String, Object> copy(Map<String, ?> arguments) {
		return Collections.unmodifiableMap(new LinkedHashMap<>(arguments));
	}

	/**
	 * An exchange.
	 *
	 * @param name the name
	 * @param type {@code fanout}, {@code direct}, {@code topic} or {@code headers}
	 * @param durable whether it survives a broker restart
	 * @param arguments its arguments, e.g. {@code alternate-exchange}
	 */
	public record Exchange(String name, String type, boolean durable, Map<String, Object> arguments) {

		/**
		 * Checks the values.
		 * @param name not blank
		 * @param type one of the four exchange types
		 * @param durable whether it is durable
		 * @param arguments the arguments
		 */
		public Exchange {
			requireName("exchange", name);
			if (!EXCHANGE_TYPES.contains(type)) {
				throw new IllegalArgumentException("Exchange '" + name + "' has type '" + type + "'; the type must be one "
						+ "of " + EXCHANGE_TYPES);
			}
			arguments = copy(arguments);
		}

		/**
		 * A durable exchange without arguments.
		 * @param name the name
		 * @param type the type
		 * @return the exchange
		 */
		public static Exchange of(String name, String type) {
			return new Exchange(name, type, true, Map.of());
		}

	}

	/**
	 * A queue.
	 *
	 * @param name the name
	 * @param durable whether it survives a broker restart
	 * @param arguments its arguments, e.g. {@code x-queue-type}
	 */
	public record Queue(String name, boolean durable, Map<String, Object> arguments) {

		/**
		 * Checks the values.
		 * @param name not blank
		 * @param durable whether it is durable
		 * @param arguments the arguments
		 */
		public Queue {
			requireName("queue", name);
			arguments = copy(arguments);
		}

		/**
		 * A durable queue without arguments.
		 * @param name the name
		 * @return the queue
		 */
		public static Queue of(String name) {
			return new Queue(name, true, Map.of());
		}

	}

	/**
	 * A binding from an exchange to a queue or to another exchange.
	 *
	 * @param exchange the source exchange
	 * @param destination the queue or exchange bound
	 * @param toExchange whether the destination is an exchange
	 * @param routingKey the routing key or pattern; empty for fanout
	 * @param arguments the binding arguments (for headers exchanges, e.g. {@code x-match})
	 */
	public record Binding(String exchange, String destination, boolean toExchange, String routingKey,
			Map<String, Object> arguments) {

		/**
		 * Checks the values.
		 * @param exchange not blank
		 * @param destination not blank
		 * @param toExchange whether the destination is an exchange
		 * @param routingKey the routing key
		 * @param arguments the arguments
		 */
		public Binding {
			requireName("exchange", exchange);
			requireName("destination", destination);
			Objects.requireNonNull(routingKey, "routingKey must not be null");
			arguments = copy(arguments);
		}

		/**
		 * Binds a queue to an exchange.
		 * @param exchange the exchange
		 * @param queue the queue
		 * @param routingKey the routing key or pattern
		 * @return the binding
		 */
		public static Binding queue(String exchange, String queue, String routingKey) {
			return new Binding(exchange, queue, false, routingKey, Map.of());
		}

	}

	private static void requireName(String what, String name) {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("The " + what + " name must not be blank");
		}
	}

}
