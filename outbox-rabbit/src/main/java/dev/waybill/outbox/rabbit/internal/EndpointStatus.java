package dev.waybill.outbox.rabbit.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import com.rabbitmq.client.Connection;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ReceiveEndpoint;

/**
 * What the receive endpoint's pieces share, and what health checks read of it: whether it runs,
 * its consuming connection, its consumers, and why it or one of its queues is not consuming. Any
 * thread reads it; the connector thread writes the connection and the reasons.
 *
 * @since 0.1
 */
final class EndpointStatus {

	private final Map<String, ReceiveEndpoint> endpoints = new LinkedHashMap<>();

	private volatile boolean running;

	private volatile @Nullable Connection connection;

	/** Why it is not consuming: the last failure to connect, or the loss of its connection. */
	private volatile @Nullable String notConsumingReason;

	/** Why a queue lost a channel or consumer of the current connection, until it consumes again. */
	private final Map<String, String> queueLosses = new ConcurrentHashMap<>();

	/** The consumers of the current and earlier connections, for cancelling them at stop. */
	private final Queue<InboxConsumer> consumers = new ConcurrentLinkedQueue<>();

	/** The partition queues of the endpoints with partitions, and their endpoints. */
	private final Map<String, ReceiveEndpoint> partitionQueues = new LinkedHashMap<>();

	/** The same, by endpoint queue: each endpoint's partition queues in order. */
	private final Map<String, List<String>> partitionsOf = new LinkedHashMap<>();

	/** The partition queues the current connection owns, of those it shares with the other instances. */
	private final Set<String> owned = ConcurrentHashMap.newKeySet();

	/** The endpoints with partitions whose members queue the current connection subscribed to. */
	private final Set<String> members = ConcurrentHashMap.newKeySet();

	EndpointStatus(List<ReceiveEndpoint> endpoints) {
		for (ReceiveEndpoint endpoint : endpoints) {
			this.endpoints.put(endpoint.queue(), endpoint);
			if (endpoint.partitions() > 1) {
				List<String> partitions = new ArrayList<>();
				for (int i = 0; i < endpoint.partitions(); i++) {
					String partition = PartitionTopology.queue(endpoint, i);
					this.partitionQueues.put(partition, endpoint);
					partitions.add(partition);
				}
				this.partitionsOf.put(endpoint.queue(), List.copyOf(partitions));
			}
		}
	}

	List<ReceiveEndpoint> endpoints() {
		return List.copyOf(this.endpoints.values());
	}

	/**
	 * Returns the endpoint of a broker queue: its own queue, or one of its partitions.
	 */
	ReceiveEndpoint endpoint(String queue) {
		ReceiveEndpoint endpoint = this.endpoints.get(queue);
		return Objects.requireNonNull((endpoint != null) ? endpoint : this.partitionQueues.get(queue), queue);
	}

	/** Whether a broker queue is a partition of an endpoint. */
	boolean partition(String queue) {
		return this.partitionQueues.containsKey(queue);
	}

	/** The partition queues the current connection owns. */
	Set<String> owned() {
		return this.owned;
	}

	/** The partitioned endpoints whose members queue the current connection subscribed to. */
	Set<String> members() {
		return this.members;
	}

	List<String> queues() {
		return List.copyOf(this.endpoints.keySet());
	}

	boolean running() {
		return this.running;
	}

	void running(boolean running) {
		this.running = running;
	}

	@Nullable Connection connection() {
		return this.connection;
	}

	void connection(@Nullable Connection connection) {
		this.connection = connection;
	}

	/** Whether this is the live connection of a running endpoint. */
	boolean current(Connection session) {
		return this.running && this.connection == session && session.isOpen();
	}

	void notConsuming(String reason) {
		this.notConsumingReason = reason;
	}

	Map<String, String> queueLosses() {
		return this.queueLosses;
	}

	Queue<InboxConsumer> consumers() {
		return this.consumers;
	}

	boolean isConsuming() {
		return connected() && this.endpoints.keySet().stream().allMatch(this::consumes);
	}

	boolean isConsuming(String queue) {
		return connected() && consumes(queue);
	}

	private boolean connected() {
		Connection current = this.connection;
		return this.running && current != null && current.isOpen();
	}

	/**
	 * Whether every channel of a broker queue has a consumer on the current connection; for an
	 * endpoint with partitions, whether it takes part in sharing them and consumes those it owns.
	 */
	boolean consumes(String queue) {
		ReceiveEndpoint endpoint = this.endpoints.get(queue);
		if (endpoint != null && endpoint.partitions() > 1) {
			return this.members.contains(queue) && partitionQueues(queue).stream()
				.filter(this.owned::contains)
				.allMatch((partition) -> subscribed(partition) >= 1);
		}
		if (endpoint == null) {
			return partition(queue) && subscribed(queue) >= 1;
		}
		return subscribed(queue) >= QueueSubscriber.channels(endpoint);
	}

	private long subscribed(String queue) {
		Connection current = this.connection;
		return this.consumers.stream()
			.filter((consumer) -> consumer.queue().equals(queue) && consumer.connection() == current
					&& !consumer.cancelled() && consumer.getChannel().isOpen())
			.count();
	}

	/** The partition queues of an endpoint's queue; none when it has no partitions. */
	List<String> partitionQueues(String queue) {
		return this.partitionsOf.getOrDefault(queue, List.of());
	}

	/** Why a queue lost its consumer: its own loss, or those of its partitions. */
	private @Nullable String loss(String queue) {
		String own = this.queueLosses.get(queue);
		if (own != null) {
			return own;
		}
		String partitions = partitionQueues(queue).stream()
			.filter(this.queueLosses::containsKey)
			.map((partition) -> partition + ": " + this.queueLosses.get(partition))
			.collect(Collectors.joining("; "));
		return partitions.isEmpty() ? null : partitions;
	}

	@Nullable String notConsumingReason() {
		if (isConsuming()) {
			return null;
		}
		if (!connected()) {
			return this.notConsumingReason;
		}
		return this.endpoints.keySet()
			.stream()
			.filter((queue) -> !consumes(queue))
			.map((queue) -> queue + ": " + Objects.requireNonNullElse(loss(queue), "resuming"))
			.collect(Collectors.joining("; "));
	}

	@Nullable String notConsumingReason(String queue) {
		if (isConsuming(queue)) {
			return null;
		}
		return connected() ? Objects.requireNonNullElse(loss(queue), "resuming")
				: this.notConsumingReason;
	}

}
