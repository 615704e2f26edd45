package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.Objects;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * How a {@link RabbitReceiveEndpoint} runs, the same for all of its queues.
 *
 * @param topology declared on every connection before the consumers' queues, so their extra
 * bindings find their exchanges: at start and again after every recovery
 * @param topologyCheckInterval how often the topology and every consumed queue with its bindings
 * are declared again on the live connection: deleting an exchange deletes its bindings, the
 * consumers' too, and nothing tells a consumer, so without this they come back only with a new
 * connection; zero declares only when connecting
 * @param threads where the consumers' and the connecting threads come from
 * @param shutdownTimeout how long {@link RabbitReceiveEndpoint#stop()} waits for the handlers to
 * finish the deliveries they hold; positive
 * @param batchSize the most deliveries a consuming thread takes from those it holds (received
 * ahead, within the prefetch) into one inbox transaction, acknowledged after it committed; at
 * least 1, and 1 handles each delivery in a transaction of its own
 * @param batchLinger how long a consuming thread that found several deliveries waiting waits for
 * its batch to fill (a lone delivery is handled at once); zero or positive
 * @param predecessorWait how long an endpoint partitioned by ordering key holds back a keyed
 * delivery whose predecessor (named in {@code waybill-ordering-previous}) it has not received,
 * before handling it without; positive
 * @since 0.1
 */
public record ReceiveEndpointSettings(RabbitTopology topology, Duration topologyCheckInterval, WaybillThreads threads,
		Duration shutdownTimeout, int batchSize, Duration batchLinger, Duration predecessorWait) {

	/** The default most deliveries of one consuming thread handled in one inbox transaction. */
	public static final int DEFAULT_BATCH_SIZE = 16;

	/** The default longest wait for a batch to fill, when more deliveries are arriving. */
	public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(1);

	/** The default interval between declarations of the topology on a live consuming connection. */
	public static final Duration DEFAULT_TOPOLOGY_CHECK_INTERVAL = Duration.ofSeconds(30);

	/** The default longest wait for the handlers at a stop. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

	/** The default longest wait of a keyed delivery for its predecessor. */
	public static final Duration DEFAULT_PREDECESSOR_WAIT = Duration.ofSeconds(30);

	/** No topology of its own, platform threads and the defaults above. */
	public static final ReceiveEndpointSettings DEFAULTS = new ReceiveEndpointSettings(RabbitTopology.EMPTY,
			DEFAULT_TOPOLOGY_CHECK_INTERVAL, WaybillThreads.platform(), DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_BATCH_SIZE,
			DEFAULT_BATCH_LINGER, DEFAULT_PREDECESSOR_WAIT);

	/**
	 * Checks the settings.
	 * @throws IllegalArgumentException for a value outside its range
	 */
	public ReceiveEndpointSettings {
		Objects.requireNonNull(topology, "topology must not be null");
		Objects.requireNonNull(topologyCheckInterval, "interval must not be null");
		if (topologyCheckInterval.isNegative()) {
			throw new IllegalArgumentException("interval must not be negative: " + topologyCheckInterval);
		}
		Objects.requireNonNull(threads, "threads must not be null");
		Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
		if (shutdownTimeout.isNegative() || shutdownTimeout.isZero()) {
			throw new IllegalArgumentException("shutdownTimeout must be positive, was " + shutdownTimeout);
		}
		if (batchSize < 1) {
			throw new IllegalArgumentException("maxSize must be at least 1, was " + batchSize);
		}
		Objects.requireNonNull(batchLinger, "linger must not be null");
		if (batchLinger.isNegative()) {
			throw new IllegalArgumentException("linger must not be negative, was " + batchLinger);
		}
		Objects.requireNonNull(predecessorWait, "predecessorWait must not be null");
		if (predecessorWait.isNegative() || predecessorWait.isZero()) {
			throw new IllegalArgumentException("predecessorWait must be positive, was " + predecessorWait);
		}
	}

	/**
	 * Returns these settings with another shutdown timeout.
	 * @param timeout positive
	 * @return the new settings
	 */
	public ReceiveEndpointSettings withShutdownTimeout(Duration timeout) {
		return new ReceiveEndpointSettings(this.topology, this.topologyCheckInterval, this.threads, timeout,
				this.batchSize, this.batchLinger, this.predecessorWait);
	}

	/**
	 * Returns these settings with other batches.
	 * @param maxSize at least 1
	 * @param linger zero or positive
	 * @return the new settings
	 */
	public ReceiveEndpointSettings withBatch(int maxSize, Duration linger) {
		return new ReceiveEndpointSettings(this.topology, this.topologyCheckInterval, this.threads,
				this.shutdownTimeout, maxSize, linger, this.predecessorWait);
	}

	/**
	 * Returns these settings with another wait of keyed deliveries for their predecessors.
	 * @param wait positive
	 * @return the new settings
	 */
	public ReceiveEndpointSettings withPredecessorWait(Duration wait) {
		return new ReceiveEndpointSettings(this.topology, this.topologyCheckInterval, this.threads,
				this.shutdownTimeout, this.batchSize, this.batchLinger, wait);
	}

}
