package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The graceful part of a stop: cancels a connection's consumers and waits until each has finished
 * what it holds. The client dispatches a consumer's cancel-ok after the deliveries received before
 * it, so once it arrived every earlier delivery was handled and acknowledged, or returned to the
 * queue.
 *
 * @since 0.1
 */
final class ConsumerDrain {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final EndpointStatus status;

	private final Duration shutdownTimeout;

	ConsumerDrain(EndpointStatus status, Duration shutdownTimeout) {
		this.status = status;
		this.shutdownTimeout = shutdownTimeout;
	}

	void drain(Connection connection, long deadlineNanos) {
		List<InboxConsumer> cancelled = new ArrayList<>();
		List<InboxConsumer> partitioned = new ArrayList<>();
		for (InboxConsumer consumer : this.status.consumers()) {
			if (consumer.connection() != connection) {
				continue;
			}
			consumer.stopping(true);
			if (consumer.partitionByOrderingKey()) {
				partitioned.add(consumer);
				continue;
			}
			String tag = consumer.getConsumerTag();
			try {
				if (tag != null && consumer.getChannel().isOpen()) {
					consumer.getChannel().basicCancel(tag);
					cancelled.add(consumer);
				}
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Cancelling the consumer of " + consumer.queue() + " failed: " + ex.getMessage());
			}
		}
		// Partitioned by ordering key: no cancel. A cancelled consumer's deliveries, still held,
		// would return to the queue after the broker gave later ones to another consumer (the next
		// single active consumer); closing the channel returns them at once, at the head of the
		// queue, before the broker serves anyone else. So: finish what the lanes are handling,
		// leave what they hold unacknowledged, close.
		for (InboxConsumer consumer : partitioned) {
			if (!closeAfterLanes(consumer, deadlineNanos)) {
				break;
			}
		}
		for (InboxConsumer consumer : cancelled) {
			try {
				KeyPartitions<HeldDelivery> lanes = consumer.lanes();
				// the cancel-ok comes after every earlier delivery was handed to the lane, if any
				if (!consumer.finished().await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
						|| (lanes != null && !lanes.awaitIdle(deadlineNanos))) {
					logger.warn("Waybill's consumer of " + consumer.queue() + " did not finish its deliveries within "
							+ this.shutdownTimeout + "; the broker delivers those again");
					break;
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		this.status.consumers().removeIf((consumer) -> {
			if (consumer.connection() == connection) {
				consumer.shutdownLanes();
				return true;
			}
			return false;
		});
	}

	/**
	 * Lets a consumer partitioned by ordering key finish what its lanes are handling, then closes its
	 * channel: what they hold goes back to the head of the queue, in order, before the broker serves
	 * the queue's next consumer. The consumer must be {@linkplain InboxConsumer#stopping stopping}.
	 * @return false when interrupted
	 */
	boolean closeAfterLanes(InboxConsumer consumer, long deadlineNanos) {
		try {
			if (!Objects.requireNonNull(consumer.lanes()).awaitIdle(deadlineNanos)) {
				logger.warn("Waybill's consumer of " + consumer.queue() + " did not finish its deliveries "
						+ "within " + this.shutdownTimeout + "; the broker delivers those again");
			}
			consumer.getChannel().close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (IOException | TimeoutException | RuntimeException ex) {
			logger.debug("Closing the channel of the consumer of " + consumer.queue() + " failed: " + ex.getMessage());
		}
		return true;
	}

}
