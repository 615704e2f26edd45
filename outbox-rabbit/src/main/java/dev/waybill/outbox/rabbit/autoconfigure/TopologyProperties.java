package dev.waybill.outbox.rabbit.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Exchanges, queues and bindings declared under {@code waybill.rabbit.topology.*}, at start-up and
 * again after every recovery.
 *
 * @since 0.1
 */
public class TopologyProperties {

	/**
	 * Exchanges to declare, e.g. the target of a send or a topic exchange consumed by pattern.
	 */
	private List<Exchange> exchanges = new ArrayList<>();

	/**
	 * Queues to declare besides the consumers' own.
	 */
	private List<Queue> queues = new ArrayList<>();

	/**
	 * Bindings to declare, from an exchange to a queue or to another exchange.
	 */
	private List<Binding> bindings = new ArrayList<>();

	public List<Exchange> getExchanges() {
		return this.exchanges;
	}

	public void setExchanges(List<Exchange> exchanges) {
		this.exchanges = exchanges;
	}

	public List<Queue> getQueues() {
		return this.queues;
	}

	public void setQueues(List<Queue> queues) {
		this.queues = queues;
	}

	public List<Binding> getBindings() {
		return this.bindings;
	}

	public void setBindings(List<Binding> bindings) {
		this.bindings = bindings;
	}

	/**
	 * An exchange.
	 */
	public static class Exchange {

		/**
		 * The exchange name.
		 */
		private @Nullable String name;

		/**
		 * fanout, direct, topic or headers.
		 */
		private String type = "topic";

		/**
		 * Whether the exchange survives a broker restart.
		 */
		private boolean durable = true;

		/**
		 * Exchange arguments, e.g. alternate-exchange.
		 */
		private Map<String, String> arguments = new LinkedHashMap<>();

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public String getType() {
			return this.type;
		}

		public void setType(String type) {
			this.type = type;
		}

		public boolean isDurable() {
			return this.durable;
		}

		public void setDurable(boolean durable) {
			this.durable = durable;
		}

		public Map<String, String> getArguments() {
			return this.arguments;
		}

		public void setArguments(Map<String, String> arguments) {
			this.arguments = arguments;
		}

	}

	/**
	 * A queue.
	 */
	public static class Queue {

		/**
		 * The queue name.
		 */
		private @Nullable String name;

		/**
		 * Whether the queue survives a broker restart.
		 */
		private boolean durable = true;

		/**
		 * Queue arguments, e.g. x-queue-type: quorum.
		 */
		private Map<String, String> arguments = new LinkedHashMap<>();

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public boolean isDurable() {
			return this.durable;
		}

		public void setDurable(boolean durable) {
			this.durable = durable;
		}

		public Map<String, String> getArguments() {
			return this.arguments;
		}

		public void setArguments(Map<String, String> arguments) {
			this.arguments = arguments;
		}

	}

	/**
	 * A binding of a queue, or of another exchange, to an exchange.
	 */
	public static class Binding {

		/**
		 * The source exchange.
		 */
		private @Nullable String exchange;

		/**
		 * The queue bound; set this or destination-exchange.
		 */
		private @Nullable String queue;

		/**
		 * The exchange bound (exchange-to-exchange); set this or queue.
		 */
		private @Nullable String destinationExchange;

		/**
		 * The routing key or pattern (topic: words separated by dots, * one word, # any).
		 */
		private String routingKey = "";

		/**
		 * Binding arguments, e.g. x-match for a headers exchange.
		 */
		private Map<String, String> arguments = new LinkedHashMap<>();

		public @Nullable String getExchange() {
			return this.exchange;
		}

		public void setExchange(@Nullable String exchange) {
			this.exchange = exchange;
		}

		public @Nullable String getQueue() {
			return this.queue;
		}

		public void setQueue(@Nullable String queue) {
			this.queue = queue;
		}

		public @Nullable String getDestinationExchange() {
			return this.destinationExchange;
		}

		public void setDestinationExchange(@Nullable String destinationExchange) {
			this.destinationExchange = destinationExchange;
		}

		public String getRoutingKey() {
			return this.routingKey;
		}

		public void setRoutingKey(String routingKey) {
			this.routingKey = routingKey;
		}

		public Map<String, String> getArguments() {
			return this.arguments;
		}

		public void setArguments(Map<String, String> arguments) {
			this.arguments = arguments;
		}

	}

}
