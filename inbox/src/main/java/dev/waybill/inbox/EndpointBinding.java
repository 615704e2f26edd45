package dev.waybill.inbox;

import java.util.Objects;

/**
 * An extra binding of a receive endpoint's queue: to {@code exchange} with {@code routingKey}, on
 * top of the bindings to the exchanges of its handlers' message types. Use it to consume a topic
 * exchange by pattern ({@code orders.eu.*}) or a direct exchange by key. The exchange must exist,
 * or be declared by the transport's topology ({@code waybill.rabbit.topology.exchanges}).
 *
 * @param exchange the exchange name, not blank
 * @param routingKey the routing key or pattern; empty for fanout and headers exchanges
 * @since 0.1
 */
public record EndpointBinding(String exchange, String routingKey) {

	/**
	 * Checks the binding.
	 * @param exchange the exchange name, not blank
	 * @param routingKey the routing key, possibly empty
	 */
	public EndpointBinding {
		Objects.requireNonNull(exchange, "exchange must not be null");
		Objects.requireNonNull(routingKey, "routingKey must not be null");
		if (exchange.isBlank()) {
			throw new IllegalArgumentException("exchange must not be blank");
		}
	}

}
