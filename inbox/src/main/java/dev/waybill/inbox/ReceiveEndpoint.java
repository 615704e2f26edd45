package dev.waybill.inbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A receive endpoint: one queue, the settings a transport consumes it with, and its handlers, one
 * per message type. The handlers' registrations agree on the endpoint's settings (concurrency,
 * prefetch, queue arguments, retry, exception filters, extra bindings), checked once when the
 * endpoint is made; the endpoint's accessors are where transports and the inbox read them.
 *
 * @since 0.1
 */
public final class ReceiveEndpoint {

	private final List<ConsumerRegistration<?>> consumers;

	private ReceiveEndpoint(List<ConsumerRegistration<?>> consumers) {
		this.consumers = consumers;
	}

	/**
	 * Returns the endpoint of the given registrations.
	 * @param consumers its handlers' registrations, at least one, all of one queue, each of a message
	 * type of its own, agreeing on the endpoint's settings
	 * @return the endpoint
	 * @throws IllegalArgumentException when two registrations take the same message type or differ in
	 * the endpoint's settings
	 */
	public static ReceiveEndpoint of(List<? extends ConsumerRegistration<?>> consumers) {
		if (consumers.isEmpty()) {
			throw new IllegalArgumentException("A receive endpoint has at least one consumer");
		}
		List<ConsumerRegistration<?>> checked = new ArrayList<>();
		for (ConsumerRegistration<?> registration : consumers) {
			for (ConsumerRegistration<?> other : checked) {
				if (!other.queue().equals(registration.queue())) {
					throw new IllegalArgumentException("A receive endpoint has one queue: " + other + " and "
							+ registration);
				}
				if (other.messageType().equals(registration.messageType())) {
					throw new IllegalArgumentException("Two consumers of queue '" + registration.queue()
							+ "' take message type '" + registration.messageType() + "': " + other + " and "
							+ registration + ". A receive endpoint has one handler per message type.");
				}
				String difference = difference(other, registration);
				if (difference != null) {
					throw new IllegalArgumentException("The consumers of queue '" + registration.queue()
							+ "' differ in the endpoint's " + difference + ": " + other + " and " + registration
							+ ". Handlers of one queue share its settings.");
				}
			}
			checked.add(registration);
		}
		return new ReceiveEndpoint(List.copyOf(checked));
	}

	private static @Nullable String difference(ConsumerRegistration<?> a, ConsumerRegistration<?> b) {
		if (a.concurrency() != b.concurrency()) {
			return "concurrency (" + a.concurrency() + " and " + b.concurrency() + ")";
		}
		if (a.prefetch() != b.prefetch()) {
			return "prefetch (" + a.prefetch() + " and " + b.prefetch() + ")";
		}
		if (!a.queueArguments().equals(b.queueArguments())) {
			return "queue arguments";
		}
		if (!Objects.equals(a.retry(), b.retry())) {
			return "retry policy";
		}
		if (!a.neverRetry().equals(b.neverRetry()) || !a.ignore().equals(b.ignore())) {
			return "exception filters";
		}
		if (!a.bindings().equals(b.bindings())) {
			return "extra bindings";
		}
		return null;
	}

	/** The registration whose settings are the endpoint's: they all agree on them. */
	private ConsumerRegistration<?> settings() {
		return this.consumers.get(0);
	}

	/**
	 * Returns the queue.
	 * @return the queue name, also the consumer id in the inbox
	 */
	public String queue() {
		return settings().queue();
	}

	/**
	 * Returns where the endpoint's faulted messages go.
	 * @return the queue's name with {@code _error} appended
	 */
	public String errorQueue() {
		return settings().errorQueue();
	}

	/**
	 * Returns its handlers' registrations, one per message type, in registration order.
	 * @return an unmodifiable list, never empty
	 */
	public List<ConsumerRegistration<?>> consumers() {
		return this.consumers;
	}

	/**
	 * Returns how many of the queue's messages are handled at once.
	 * @return at least 1
	 */
	public int concurrency() {
		return settings().concurrency();
	}

	/**
	 * Returns how many messages the broker sends ahead of each consuming thread.
	 * @return at least 1
	 */
	public int prefetch() {
		return settings().prefetch();
	}

	/**
	 * Returns the arguments the queue is declared with.
	 * @return an unmodifiable map, empty by default
	 */
	public Map<String, Object> queueArguments() {
		return settings().queueArguments();
	}

	/**
	 * Returns the extra bindings of the queue, beside those to its handlers' message types.
	 * @return an unmodifiable list, empty by default
	 */
	public List<EndpointBinding> bindings() {
		return settings().bindings();
	}

	/**
	 * Tells whether the endpoint is partitioned by ordering key: the deliveries of one key are handled
	 * one after another, in order, different keys in parallel.
	 * @return whether it is partitioned by ordering key
	 */
	public boolean partitionByOrderingKey() {
		return settings().partitionByOrderingKey();
	}

	/**
	 * Returns the endpoint's retry policy.
	 * @return the policy, or {@literal null} for the inbox's
	 */
	public @Nullable EndpointRetry retry() {
		return settings().retry();
	}

	/**
	 * Returns the exceptions that fault a message at once.
	 * @return an unmodifiable list
	 */
	public List<Class<? extends Throwable>> neverRetry() {
		return settings().neverRetry();
	}

	/**
	 * Returns the exceptions that drop a message as handled.
	 * @return an unmodifiable list
	 */
	public List<Class<? extends Throwable>> ignore() {
		return settings().ignore();
	}

	@Override
	public String toString() {
		return "ReceiveEndpoint[" + queue() + ", " + this.consumers.size() + " consumers]";
	}

}
