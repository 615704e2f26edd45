package dev.waybill.inbox.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.convert.DurationStyle;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.autoconfigure.RetrySettings;

/**
 * Makes the {@link ReceiveEndpoint} of one queue, its settings resolved once for all its handlers:
 * an attribute of a handler's {@link Consumer @Consumer} wins, else
 * {@code waybill.inbox.endpoints.<queue>.*}, else {@code waybill.inbox.*}. Two handlers of the queue
 * setting one attribute differently fail start-up naming both; a bad value fails it naming the
 * attribute or the property.
 */
final class EndpointDefinition {

	private EndpointDefinition() {
	}

	/**
	 * Returns the endpoint of {@code queue}, without handlers: the caller registers them on it.
	 */
	static ReceiveEndpoint resolve(String queue, List<ConsumerDiscovery.Found> handlers,
			WaybillInboxProperties properties) {
		String prefix = WaybillInboxProperties.PREFIX + ".endpoints." + queue;
		EndpointProperties own = properties.getEndpoints().get(queue);
		Annotated<Integer> concurrency = annotated(handlers, "concurrency", Consumer::concurrency, (value) -> value != 0);
		Annotated<Integer> prefetch = annotated(handlers, "prefetch", Consumer::prefetch, (value) -> value != 0);
		int resolvedConcurrency = positive(concurrency, (own != null) ? own.getConcurrency() : null,
				prefix + ".concurrency", properties.getConcurrency());
		int resolvedPrefetch = positive(prefetch, (own != null) ? own.getPrefetch() : null, prefix + ".prefetch",
				properties.getPrefetch());
		EndpointRetry retry = retry(prefix, handlers, (own != null) ? own.getRetry() : null, properties);
		List<Class<? extends Throwable>> neverRetry = exceptions(prefix + ".never-retry",
				annotated(handlers, "neverRetry", (consumer) -> List.of(consumer.neverRetry()), (list) -> !list.isEmpty()),
				(own != null) ? own.getNeverRetry() : List.of());
		List<Class<? extends Throwable>> ignore = exceptions(prefix + ".ignore",
				annotated(handlers, "ignore", (consumer) -> List.of(consumer.ignore()), (list) -> !list.isEmpty()),
				(own != null) ? own.getIgnore() : List.of());
		return ReceiveEndpoint.on(queue)
			.withConcurrency(resolvedConcurrency)
			.withPrefetch(resolvedPrefetch)
			.withQueueArguments(properties.queueArgumentValues())
			.withRetry(retry)
			.withNeverRetry(neverRetry)
			.withIgnore(ignore)
			.withBindings(bindings(prefix, handlers, own))
			.withPartitionByOrderingKey(properties.isPartitionByOrderingKey())
			.withPartitions(positive(new Annotated<>(null, "partitions", null),
					(own != null) ? own.getPartitions() : null, prefix + ".partitions", 1));
	}

	/**
	 * The value of an attribute set on the handlers of one queue, and who set it; {@literal null}
	 * value when none did.
	 */
	private record Annotated<V>(@Nullable V value, String attribute, @Nullable String setBy) {
	}

	private static <V> Annotated<V> annotated(List<ConsumerDiscovery.Found> handlers, String attribute,
			Function<Consumer, V> read, java.util.function.Predicate<V> isSet) {
		V value = null;
		String setBy = null;
		for (ConsumerDiscovery.Found handler : handlers) {
			if (handler.settings() == null) {
				continue;
			}
			V candidate = read.apply(handler.settings());
			if (!isSet.test(candidate)) {
				continue;
			}
			if (value != null && !value.equals(candidate)) {
				throw new IllegalStateException("@Consumer(" + attribute + ") differs between the handlers of queue '"
						+ handler.queue() + "': " + show(value) + " on " + setBy + ", " + show(candidate) + " on "
						+ handler.describe() + ". Handlers of one queue share its settings; set it on one of them.");
			}
			value = candidate;
			setBy = handler.describe();
		}
		return new Annotated<>(value, attribute, setBy);
	}

	private static String show(Object value) {
		return (value instanceof Object[] array) ? Arrays.toString(array) : String.valueOf(value);
	}

	private static int positive(Annotated<Integer> annotated, @Nullable Integer property, String propertyName,
			int fallback) {
		if (annotated.value() != null) {
			if (annotated.value() < 1) {
				throw new IllegalStateException("@Consumer(" + annotated.attribute() + " = " + annotated.value()
						+ ") on " + annotated.setBy() + " must be at least 1, or 0 for " + propertyName + ".");
			}
			return annotated.value();
		}
		if (property != null) {
			if (property < 1) {
				throw new InvalidConfigurationPropertyValueException(propertyName, property,
						"The value must be at least 1. Set " + propertyName + " accordingly.");
			}
			return property;
		}
		return fallback;
	}

	private static @Nullable EndpointRetry retry(String prefix, List<ConsumerDiscovery.Found> handlers,
			EndpointProperties.@Nullable Retry own, WaybillInboxProperties properties) {
		Annotated<Integer> maxAttempts = annotated(handlers, "maxAttempts", Consumer::maxAttempts, (value) -> value != 0);
		Annotated<String> interval = annotated(handlers, "retryInterval", Consumer::retryInterval,
				(value) -> !value.isEmpty());
		Annotated<Integer> immediate = annotated(handlers, "immediateRetries", Consumer::immediateRetries,
				(value) -> value != -1);
		if (own == null && maxAttempts.value() == null && interval.value() == null && immediate.value() == null) {
			return null;
		}
		WaybillInboxProperties.Retry global = properties.getRetry();
		RetrySettings merged = new WaybillInboxProperties.Retry();
		merged.setStrategy(pick(own, EndpointProperties.Retry::getStrategy, global.getStrategy()));
		merged.setInterval(pick(own, EndpointProperties.Retry::getInterval, global.getInterval()));
		merged.setRate(pick(own, EndpointProperties.Retry::getRate, global.getRate()));
		merged.setMaxDelay(pick(own, EndpointProperties.Retry::getMaxDelay, global.getMaxDelay()));
		merged.setMaxAttempts(pick(own, EndpointProperties.Retry::getMaxAttempts, global.getMaxAttempts()));
		merged.setJitter(pick(own, EndpointProperties.Retry::getJitter, global.getJitter()));
		int immediateRetries = pick(own, EndpointProperties.Retry::getImmediate, global.getImmediate());
		if (maxAttempts.value() != null) {
			if (maxAttempts.value() < 1) {
				throw new IllegalStateException("@Consumer(maxAttempts = " + maxAttempts.value() + ") on "
						+ maxAttempts.setBy() + " must be at least 1, or 0 for " + prefix + ".retry.max-attempts.");
			}
			merged.setMaxAttempts(maxAttempts.value());
		}
		if (interval.value() != null) {
			try {
				merged.setInterval(DurationStyle.detectAndParse(interval.value()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException("@Consumer(retryInterval = \"" + interval.value() + "\") on "
						+ interval.setBy() + " is not a duration such as 500ms or PT2S: " + ex.getMessage());
			}
		}
		if (immediate.value() != null) {
			if (immediate.value() < 0) {
				throw new IllegalStateException("@Consumer(immediateRetries = " + immediate.value() + ") on "
						+ immediate.setBy() + " must be at least 0, or -1 for " + prefix + ".retry.immediate.");
			}
			immediateRetries = immediate.value();
		}
		else if (immediateRetries < 0) {
			throw new InvalidConfigurationPropertyValueException(prefix + ".retry.immediate", immediateRetries,
					"The value must be at least 0 (0 for no in-process retry).");
		}
		return new EndpointRetry(merged.toRetryPolicy(prefix + ".retry"), immediateRetries);
	}

	private static <V> V pick(EndpointProperties.@Nullable Retry own, Function<EndpointProperties.Retry, V> read,
			V fallback) {
		V value = (own != null) ? read.apply(own) : null;
		return (value != null) ? value : fallback;
	}

	@SuppressWarnings("unchecked") // checked one by one
	private static List<Class<? extends Throwable>> exceptions(String propertyName,
			Annotated<List<Class<? extends Throwable>>> annotated, List<Class<?>> property) {
		if (annotated.value() != null) {
			return annotated.value();
		}
		List<Class<? extends Throwable>> exceptions = new ArrayList<>();
		for (Class<?> type : property) {
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new InvalidConfigurationPropertyValueException(propertyName, type.getName(),
						"Every class must be a Throwable; " + type.getName() + " is not. Set " + propertyName
								+ " to exception class names.");
			}
			exceptions.add((Class<? extends Throwable>) type);
		}
		return List.copyOf(exceptions);
	}

	private static List<EndpointBinding> bindings(String prefix, List<ConsumerDiscovery.Found> handlers,
			@Nullable EndpointProperties own) {
		Annotated<List<Consumer.Binding>> annotated = annotated(handlers, "bindings",
				(consumer) -> List.of(consumer.bindings()), (list) -> !list.isEmpty());
		List<EndpointBinding> bindings = new ArrayList<>();
		if (annotated.value() != null) {
			for (Consumer.Binding binding : annotated.value()) {
				if (binding.exchange().isBlank()) {
					throw new IllegalStateException("@Consumer(bindings = @Binding(exchange = \"\")) on "
							+ annotated.setBy() + ": the exchange must not be blank.");
				}
				bindings.add(new EndpointBinding(binding.exchange(), binding.routingKey()));
			}
			return List.copyOf(bindings);
		}
		if (own == null) {
			return List.of();
		}
		for (int i = 0; i < own.getBindings().size(); i++) {
			EndpointProperties.Binding binding = own.getBindings().get(i);
			String exchange = binding.getExchange();
			if (exchange == null || exchange.isBlank()) {
				String name = prefix + ".bindings[" + i + "].exchange";
				throw new InvalidConfigurationPropertyValueException(name, exchange,
						"Every binding needs an exchange. Set " + name + ".");
			}
			bindings.add(new EndpointBinding(exchange, Objects.requireNonNullElse(binding.getRoutingKey(), "")));
		}
		return List.copyOf(bindings);
	}

}
