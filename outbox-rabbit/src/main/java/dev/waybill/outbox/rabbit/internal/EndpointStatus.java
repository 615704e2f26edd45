package dev.waybill.outbox.rabbit.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
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

	EndpointStatus(List<ReceiveEndpoint> endpoints) {
		endpoints.forEach((endpoint) -> this.endpoints.put(endpoint.queue(), endpoint));
	}

	List<ReceiveEndpoint> endpoints() {
		return List.copyOf(this.endpoints.values());
	}

	ReceiveEndpoint endpoint(String queue) {
		return Objects.requireNonNull(this.endpoints.get(queue), queue);
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

	/** Whether every channel of the queue has a consumer on the current connection. */
	boolean consumes(String queue) {
		Connection current = this.connection;
		ReceiveEndpoint endpoint = this.endpoints.get(queue);
		if (endpoint == null) {
			return false;
		}
		long subscribed = this.consumers.stream()
			.filter((consumer) -> consumer.queue().equals(queue) && consumer.connection() == current
					&& !consumer.cancelled() && consumer.getChannel().isOpen())
			.count();
		return subscribed >= QueueSubscriber.channels(endpoint);
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
			.map((queue) -> queue + ": " + Objects.requireNonNullElse(this.queueLosses.get(queue), "resuming"))
			.collect(Collectors.joining("; "));
	}

	@Nullable String notConsumingReason(String queue) {
		if (isConsuming(queue)) {
			return null;
		}
		return connected() ? Objects.requireNonNullElse(this.queueLosses.get(queue), "resuming")
				: this.notConsumingReason;
	}

}
