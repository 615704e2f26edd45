package dev.waybill.inbox.internal;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.MessageHandler;

/**
 * The consumers of an application, one per queue, in registration order. A transport endpoint
 * consumes each registration's queue and hands every delivery to the {@link InboxProcessor} with
 * its registration. The inbox auto-configuration provides one holding every {@link MessageHandler}
 * bean; {@link #of(Collection)} makes one by hand.
 *
 * @since 0.1
 */
public final class ConsumerRegistry {

	private final Map<String, ConsumerRegistration<?>> byQueue;

	private ConsumerRegistry(Map<String, ConsumerRegistration<?>> byQueue) {
		this.byQueue = byQueue;
	}

	/**
	 * Returns a registry of the given consumers.
	 * @param registrations the consumers, each with a queue of its own
	 * @return the registry
	 * @throws IllegalArgumentException when two consumers share a queue
	 */
	public static ConsumerRegistry of(Collection<? extends ConsumerRegistration<?>> registrations) {
		Map<String, ConsumerRegistration<?>> byQueue = new LinkedHashMap<>();
		for (ConsumerRegistration<?> registration : registrations) {
			ConsumerRegistration<?> other = byQueue.putIfAbsent(registration.queue(), registration);
			if (other != null) {
				throw new IllegalArgumentException("Two consumers share queue '" + registration.queue() + "': "
						+ other + " and " + registration + ". Give each handler a queue of its own.");
			}
		}
		return new ConsumerRegistry(byQueue);
	}

	/**
	 * Returns every consumer, in registration order.
	 * @return an unmodifiable list, empty when the application has no handler
	 */
	public List<ConsumerRegistration<?>> registrations() {
		return List.copyOf(this.byQueue.values());
	}

	/**
	 * Returns the consumer of a queue.
	 * @param queue the queue name
	 * @return the consumer, or empty when none consumes that queue
	 */
	public Optional<ConsumerRegistration<?>> find(String queue) {
		return Optional.ofNullable(this.byQueue.get(queue));
	}

	@Override
	public String toString() {
		return "ConsumerRegistry" + this.byQueue.values();
	}

}
