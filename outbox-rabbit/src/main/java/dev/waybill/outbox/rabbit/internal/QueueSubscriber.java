package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;

/**
 * Consumes a queue on a new channel: with manual acknowledgements and the endpoint's prefetch, a
 * consumer of its own, and its lanes when it batches or is partitioned by ordering key.
 *
 * @since 0.1
 */
final class QueueSubscriber {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final DeliveryProcessor processor;

	private final ConsumerRegistry registry;

	private final ReceiveEndpointSettings settings;

	private final EndpointStatus status;

	private final InboxConsumer.LossListener losses;

	/** Per queue, shared by its consumers: an outage is told once, not per consumer thread. */
	private final Map<String, RecordingOutageLog> outageLogs = new ConcurrentHashMap<>();

	QueueSubscriber(DeliveryProcessor processor, ConsumerRegistry registry, ReceiveEndpointSettings settings,
			EndpointStatus status, InboxConsumer.LossListener losses) {
		this.processor = processor;
		this.registry = registry;
		this.settings = settings;
		this.status = status;
		this.losses = losses;
	}

	void consume(Connection connection, ReceiveEndpoint endpoint) throws IOException {
		consume(connection, endpoint, endpoint.queue());
	}

	/**
	 * Consumes one broker queue of an endpoint: its own, or one of its partitions.
	 */
	void consume(Connection connection, ReceiveEndpoint endpoint, String queue) throws IOException {
		Channel channel = connection.createChannel();
		boolean partitionByOrderingKey = endpoint.partitionByOrderingKey();
		int lanes = partitionByOrderingKey ? endpoint.concurrency() : 1;
		channel.basicQos(endpoint.prefetch() * lanes);
		InboxConsumer consumer = new InboxConsumer(channel, queue, endpoint.queue(), partitionByOrderingKey, lanes == 1,
				this.processor, this.registry, this.outageLogs.computeIfAbsent(endpoint.queue(), RecordingOutageLog::new),
				this.losses);
		// Without batched transactions (JPA's transaction manager) a lane takes one delivery at a
		// time: handed several, the inbox would run them all, also after a stop began.
		int batchSize = (this.processor.whyNotBatched() == null) ? this.settings.batchSize() : 1;
		if (partitionByOrderingKey || batchSize > 1) {
			// A lane cannot take more than the broker sends ahead of it.
			KeyPartitions<HeldDelivery> partitions = new KeyPartitions<>(lanes, Math.min(batchSize, endpoint.prefetch()),
					this.settings.batchLinger().toNanos(),
					this.settings.threads().factory("waybill-consumer-" + queue + "-"),
					new BatchSettlement(consumer, this.processor, consumer.outageLog()));
			consumer.lanes(partitions);
			if (partitionByOrderingKey) {
				consumer.gate(new PredecessorGate(this.settings.predecessorWait(), queue,
						(held, previous) -> this.processor.received(held.registration(), previous), partitions::submit,
						(held, previous) -> this.processor.predecessorMissing(held.registration(), held.message(),
								previous)));
			}
		}
		this.status.consumers().removeIf((earlier) -> !earlier.getChannel().isOpen());
		this.status.consumers().add(consumer);
		channel.basicConsume(queue, false, consumer);
		// A channel the broker closes alone (e.g. a delivery unacknowledged past its consumer_timeout)
		channel.addShutdownListener((cause) -> {
			// a cancelled consumer's channel is being retired: its queue is resumed already
			if (!cause.isHardError() && !cause.isInitiatedByApplication() && !consumer.cancelled()) {
				this.losses.channelLost(connection, queue, null, "the broker closed a channel consuming " + queue
						+ ": " + BrokerErrors.describe(cause));
			}
		});
	}

	/**
	 * How many channels consume an endpoint's queue: one, whose workers are the lanes, when it is
	 * partitioned by ordering key, so the broker hands a key's deliveries to one consumer in order;
	 * else one per unit of concurrency. Also at concurrency 1 a partitioned endpoint keeps each key's
	 * order (no cancel at a stop, an outage retried in place), since a requeued delivery would lose
	 * its place (a quorum queue puts it at its tail) and a cancel at a stop would let the next single
	 * active consumer start before what this one held went back.
	 */
	static int channels(ReceiveEndpoint endpoint) {
		return endpoint.partitionByOrderingKey() ? 1 : endpoint.concurrency();
	}

	/** Says where an endpoint's prefetch holds its batches below the configured maximum. */
	void logBatchesCappedByPrefetch() {
		int batchSize = this.settings.batchSize();
		if (batchSize <= 1) {
			return;
		}
		for (ReceiveEndpoint endpoint : this.status.endpoints()) {
			int prefetch = endpoint.prefetch();
			if (prefetch < batchSize) {
				logger.info("Waybill batches at most " + prefetch + " deliveries of queue '" + endpoint.queue()
						+ "' in a transaction, its prefetch, below the batch max-size of " + batchSize
						+ " (raise the endpoint's prefetch to fill larger batches)");
			}
		}
	}

}
