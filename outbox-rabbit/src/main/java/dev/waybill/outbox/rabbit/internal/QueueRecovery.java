package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;

import com.rabbitmq.client.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * Recovers one queue when the broker closes one of its consume channels (a delivery unacknowledged
 * past its {@code consumer_timeout}) or cancels one consumer (its queue was deleted, its node is
 * down): declares the declared topology and that queue again and consumes it on a new channel of
 * the same connection, leaving the other queues' channels, and the deliveries they hold, alone.
 * When the connection itself is lost, {@link ConnectionRecovery} renews it all.
 *
 * @since 0.1
 */
final class QueueRecovery implements InboxConsumer.LossListener {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private static final long RETIRE_CHECK_MILLIS = 50;

	private final RabbitTransport transport;

	private final RabbitTopology topology;

	private final Duration shutdownTimeout;

	private final EndpointStatus status;

	private final EndpointExecutors executors;

	private final QueueDeclarer declarer;

	private final QueueSubscriber subscriber;

	QueueRecovery(RabbitTransport transport, RabbitTopology topology, Duration shutdownTimeout, EndpointStatus status,
			EndpointExecutors executors, QueueDeclarer declarer, QueueSubscriber subscriber) {
		this.transport = transport;
		this.topology = topology;
		this.shutdownTimeout = shutdownTimeout;
		this.status = status;
		this.executors = executors;
		this.declarer = declarer;
		this.subscriber = subscriber;
	}

	@Override
	public void channelLost(Connection session, String queue, @Nullable InboxConsumer cancelled, String what) {
		this.executors.schedule(() -> {
			if (!this.status.current(session)) {
				return;
			}
			if (this.status.queueLosses().put(queue, what) == null) { // told once for the queue, not per channel
				logger.warn("Waybill stopped consuming " + queue + " on one channel (" + what + "); it declares "
						+ "the queue again and resumes on a new channel, the other queues consume on");
			}
			if (cancelled != null) {
				retire(session, queue, what, cancelled, System.nanoTime() + this.shutdownTimeout.toNanos());
			}
			else {
				resume(session, queue, what, 0, null);
			}
		}, 0);
	}

	/**
	 * Lets the lanes of a consumer the broker cancelled finish the deliveries they hold, then closes
	 * its channel and consumes the queue again: a queue deleted took those messages with it, and
	 * what the lanes hold is all that is left of them (the inbox makes a copy the broker still has
	 * take effect once). A new channel starts only after them, so a key's deliveries stay in order.
	 */
	private void retire(Connection session, String queue, String lost, InboxConsumer cancelled, long deadlineNanos) {
		if (!this.status.current(session)) {
			return;
		}
		KeyPartitions<HeldDelivery> lanes = cancelled.lanes();
		if (lanes != null && !lanes.idle() && System.nanoTime() - deadlineNanos < 0) {
			this.executors.schedule(() -> retire(session, queue, lost, cancelled, deadlineNanos), RETIRE_CHECK_MILLIS);
			return;
		}
		RabbitTransport.abortQuietly(cancelled.getChannel());
		resume(session, queue, lost, 0, null);
	}

	/**
	 * One attempt to consume a queue again on the same connection; schedules the next on failure.
	 * @param lost how the queue's consumer was lost, kept in the queue's reason beside the last
	 * failure to resume it
	 */
	private void resume(Connection session, String queue, String lost, int failedAttempts,
			@Nullable String lastReason) {
		if (!this.status.current(session)) {
			return;
		}
		if (this.status.partition(queue) && !this.status.owned().contains(queue)) {
			this.status.queueLosses().remove(queue); // handed over meanwhile: another instance's now
			return;
		}
		ReceiveEndpoint endpoint = this.status.endpoint(queue);
		try {
			this.topology.declare(session); // its extra bindings may name declared exchanges an operator deleted too
			this.declarer.declare(session, endpoint);
			this.subscriber.consume(session, endpoint, queue);
		}
		catch (IOException | RuntimeException ex) {
			if (!session.isOpen()) {
				return; // the connection's loss renews it all
			}
			long delay = this.executors.backoff(failedAttempts + 1);
			String reason = BrokerErrors.describe(ex);
			// the reason first: whoever reads the log may look at the health next
			this.status.queueLosses().put(queue, lost + "; consuming it again failed: " + reason);
			String text = "Waybill could not resume consuming " + queue + " from RabbitMQ at " + this.transport + ": "
					+ reason + "; trying again in " + delay + " ms";
			if (reason.equals(lastReason)) {
				logger.debug(text);
			}
			else if (ConsumerRefusal.refused(ex)) {
				logger.error(text);
			}
			else {
				logger.warn(text);
			}
			this.executors.schedule(() -> resume(session, queue, lost, failedAttempts + 1, reason), delay);
			return;
		}
		if (this.status.consumes(queue)) {
			this.status.queueLosses().remove(queue);
			logger.info("Waybill consuming " + queue + " again from RabbitMQ at " + this.transport);
		}
	}

}
