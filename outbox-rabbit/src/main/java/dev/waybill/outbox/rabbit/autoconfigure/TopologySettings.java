package dev.waybill.outbox.rabbit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * Turns {@code waybill.rabbit.topology.*} and the application's {@link RabbitTopology} beans into
 * one checked topology; every problem names the property.
 */
final class TopologySettings {

	private static final String P = WaybillRabbitProperties.PREFIX + ".topology.";

	private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,18}");

	private static final List<String> TYPES = List.of("fanout", "direct", "topic", "headers");

	private TopologySettings() {
	}

	static RabbitTopology topology(TopologyProperties properties, List<RabbitTopology> beans) {
		RabbitTopology topology = RabbitTopology.EMPTY;
		for (int i = 0; i < properties.getExchanges().size(); i++) {
			TopologyProperties.Exchange exchange = properties.getExchanges().get(i);
			String at = P + "exchanges[" + i + "].";
			String name = required(at + "name", exchange.getName());
			if (!TYPES.contains(exchange.getType())) {
				throw new InvalidConfigurationPropertyValueException(at + "type", exchange.getType(),
						"The value must be one of " + TYPES + ". Set " + at + "type accordingly.");
			}
			topology = topology.withExchange(new RabbitTopology.Exchange(name, exchange.getType(), exchange.isDurable(),
					values(exchange.getArguments())));
		}
		for (int i = 0; i < properties.getQueues().size(); i++) {
			TopologyProperties.Queue queue = properties.getQueues().get(i);
			String name = required(P + "queues[" + i + "].name", queue.getName());
			topology = topology.withQueue(new RabbitTopology.Queue(name, queue.isDurable(), values(queue.getArguments())));
		}
		for (int i = 0; i < properties.getBindings().size(); i++) {
			TopologyProperties.Binding binding = properties.getBindings().get(i);
			String at = P + "bindings[" + i + "].";
			String exchange = required(at + "exchange", binding.getExchange());
			boolean toQueue = binding.getQueue() != null && !binding.getQueue().isBlank();
			boolean toExchange = binding.getDestinationExchange() != null && !binding.getDestinationExchange().isBlank();
			if (toQueue == toExchange) {
				throw new InvalidConfigurationPropertyValueException(at + "queue", binding.getQueue(),
						"A binding needs exactly one of " + at + "queue and " + at + "destination-exchange.");
			}
			String destination = toQueue ? binding.getQueue() : binding.getDestinationExchange();
			topology = topology.withBinding(new RabbitTopology.Binding(exchange, destination, toExchange,
					binding.getRoutingKey(), values(binding.getArguments())));
		}
		for (RabbitTopology bean : beans) {
			for (RabbitTopology.Exchange exchange : bean.exchanges()) {
				topology = topology.withExchange(exchange);
			}
			for (RabbitTopology.Queue queue : bean.queues()) {
				topology = topology.withQueue(queue);
			}
			for (RabbitTopology.Binding binding : bean.bindings()) {
				topology = topology.withBinding(binding);
			}
		}
		return topology;
	}

	private static String required(String property, @Nullable String value) {
		if (value == null || value.isBlank()) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"The value must not be blank. Set " + property + ".");
		}
		return value;
	}

	/** AMQP values: integers as Long, true/false as Boolean, anything else as text. */
	private static Map<String, Object> values(Map<String, String> arguments) {
		Map<String, Object> values = new LinkedHashMap<>();
		arguments.forEach((name, value) -> {
			String trimmed = value.trim();
			if (INTEGER.matcher(trimmed).matches()) {
				values.put(name, Long.valueOf(trimmed));
			}
			else if (trimmed.equalsIgnoreCase("true") || trimmed.equalsIgnoreCase("false")) {
				values.put(name, Boolean.valueOf(trimmed));
			}
			else {
				values.put(name, value);
			}
		});
		return values;
	}

}
