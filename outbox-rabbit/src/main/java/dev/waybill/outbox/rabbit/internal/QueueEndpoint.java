package dev.waybill.outbox.rabbit.internal;

import java.util.List;
import java.util.Map;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;

/**
 * One receive endpoint as the RabbitMQ endpoint consumes it: a queue, its consumers (one per
 * message type), and the settings they share.
 *
 * @param queue the queue
 * @param consumers its consumers, at least one; they agree on the endpoint's settings
 * @since 0.1
 */
record QueueEndpoint(String queue, List<ConsumerRegistration<?>> consumers) {

	QueueEndpoint {
		consumers = List.copyOf(consumers);
		if (consumers.isEmpty()) {
			throw new IllegalArgumentException("queue " + queue + " has no consumers");
		}
	}

	private ConsumerRegistration<?> settings() {
		return this.consumers.get(0);
	}

	int concurrency() {
		return settings().concurrency();
	}

	int prefetch() {
		return settings().prefetch();
	}

	/**
	 * Whether the endpoint keeps each key's order (one lane per worker, no cancel at a stop, an
	 * outage retried in place): also at concurrency 1, where a requeued delivery would lose its
	 * place too (a quorum queue puts it at its tail) and a cancel at a stop would let the next
	 * single active consumer start before what this one held went back.
	 */
	boolean partitionByOrderingKey() {
		return settings().partitionByOrderingKey();
	}

	/** Partitioned by ordering key: one channel whose workers are the lanes; else one per thread. */
	int channels() {
		return partitionByOrderingKey() ? 1 : concurrency();
	}

	Map<String, Object> queueArguments() {
		return settings().queueArguments();
	}

	List<EndpointBinding> bindings() {
		return settings().bindings();
	}

	String errorQueue() {
		return settings().errorQueue();
	}

}
