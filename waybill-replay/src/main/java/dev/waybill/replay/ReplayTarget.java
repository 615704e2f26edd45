package dev.waybill.replay;

import org.jspecify.annotations.Nullable;

/**
 * Where replayed messages go: to their original exchange and routing key, to another exchange, or
 * straight to a queue (through the default exchange, as a new consumer's own queue).
 *
 * @param destination the exchange, {@literal null} for each message's original one; {@code ""}
 * is the default exchange, which routes to the queue named by the routing key
 * @param routingKey the routing key when {@code destination} is set
 * @since 0.1
 */
public record ReplayTarget(@Nullable String destination, String routingKey) {

	/**
	 * Each message to its original exchange with its original routing key.
	 * @return the target
	 */
	public static ReplayTarget original() {
		return new ReplayTarget(null, "");
	}

	/**
	 * Every message to one exchange.
	 * @param exchange the exchange
	 * @param routingKey the routing key
	 * @return the target
	 */
	public static ReplayTarget exchange(String exchange, String routingKey) {
		return new ReplayTarget(exchange, routingKey);
	}

	/**
	 * Every message to one queue, through the default exchange.
	 * @param queue the queue
	 * @return the target
	 */
	public static ReplayTarget queue(String queue) {
		return new ReplayTarget("", queue);
	}

}
