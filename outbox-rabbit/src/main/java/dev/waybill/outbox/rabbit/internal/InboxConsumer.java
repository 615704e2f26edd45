package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.PublishOptions;

/**
 * The consumer of one channel: hands each delivery to the consumer {@link ConsumerRegistry#dispatch}
 * picks by its message type, on its lanes when it has them ({@link BatchSettlement}), else at once on
 * the dispatch thread, acknowledging it after the inbox committed its outcome.
 *
 * @since 0.1
 */
final class InboxConsumer extends DefaultConsumer {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final String queue;

	/** The receive endpoint's queue, whose consumers the deliveries go to: {@link #queue} unless a partition's. */
	private final String endpointQueue;

	/** Whether partitioned by ordering key: a requeued delivery would come back behind its key's later ones. */
	private final boolean partitionByOrderingKey;

	/** Whether one lane has the channel: every earlier delivery is its own, settled in order. */
	private final boolean oneLane;

	private final DeliveryProcessor processor;

	private final ConsumerRegistry registry;

	private final RecordingOutageLog outageLog;

	private final LossListener losses;

	/**
	 * The lanes that handle the deliveries in batches: one per key partition when partitioned by
	 * ordering key, else one; {@literal null} when each delivery is handled alone on the dispatch thread.
	 */
	private volatile @Nullable KeyPartitions<HeldDelivery> lanes;

	/** Holds back a keyed delivery whose predecessor has not arrived; only when partitioned by ordering key. */
	private volatile @Nullable PredecessorGate gate;

	/** Counted down once the consumer's cancel-ok arrived, or its channel closed. */
	private final CountDownLatch finished = new CountDownLatch(1);

	private volatile boolean stopping;

	/** Whether the broker cancelled it: its channel is open, but nothing more comes. */
	private volatile boolean cancelled;

	InboxConsumer(Channel channel, String queue, String endpointQueue, boolean partitionByOrderingKey, boolean oneLane,
			DeliveryProcessor processor, ConsumerRegistry registry, RecordingOutageLog outageLog, LossListener losses) {
		super(channel);
		this.queue = queue;
		this.endpointQueue = endpointQueue;
		this.partitionByOrderingKey = partitionByOrderingKey;
		this.oneLane = oneLane;
		this.processor = processor;
		this.registry = registry;
		this.outageLog = outageLog;
		this.losses = losses;
	}

	/** The broker queue it consumes. */
	String queue() {
		return this.queue;
	}

	boolean partitionByOrderingKey() {
		return this.partitionByOrderingKey;
	}

	boolean oneLane() {
		return this.oneLane;
	}

	@Nullable KeyPartitions<HeldDelivery> lanes() {
		return this.lanes;
	}

	void lanes(KeyPartitions<HeldDelivery> lanes) {
		this.lanes = lanes;
	}

	void gate(PredecessorGate gate) {
		this.gate = gate;
	}

	/**
	 * Whether every delivery before the last of a batch was settled before it: one lane has the
	 * channel, and no delivery was ever held back out of the channel's order.
	 */
	boolean settlesInOrder() {
		PredecessorGate gate = this.gate;
		return this.oneLane && (gate == null || !gate.everHeld());
	}

	RecordingOutageLog outageLog() {
		return this.outageLog;
	}

	CountDownLatch finished() {
		return this.finished;
	}

	boolean stopping() {
		return this.stopping;
	}

	void stopping(boolean stopping) {
		this.stopping = stopping;
	}

	boolean cancelled() {
		return this.cancelled;
	}

	void shutdownLanes() {
		PredecessorGate gate = this.gate;
		if (gate != null) {
			gate.close();
		}
		KeyPartitions<HeldDelivery> lanes = this.lanes;
		if (lanes != null) {
			lanes.shutdown();
		}
	}

	Connection connection() {
		return getChannel().getConnection();
	}

	@Override
	public void handleCancelOk(String consumerTag) {
		this.finished.countDown();
	}

	@Override
	public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
		this.finished.countDown();
		// What the lanes still hold is skipped (the channel is closed) and delivered again.
		shutdownLanes();
	}

	@Override
	public void handleCancel(String consumerTag) {
		this.cancelled = true;
		this.losses.channelLost(getChannel().getConnection(), this.queue, this, "the broker cancelled the consumer of "
				+ this.queue + " (its queue was deleted, or its node is down)");
	}

	@Override
	public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
			throws IOException {
		if (this.stopping) {
			if (!this.partitionByOrderingKey) {
				// received ahead of the handlers, never handled: back to the queue for the next consumer
				getChannel().basicReject(envelope.getDeliveryTag(), true);
			}
			// partitioned: left unacknowledged, returned in order when the channel closes (see ConsumerDrain)
			return;
		}
		InboundMessage message = InboundMessages.of(envelope, properties, body);
		Object supertypes = message.headers().get(MessageTypes.SUPERTYPES_HEADER);
		Object classHint = message.headers().get(MessageTypes.CLASS_HEADER);
		ConsumerRegistration<?> registration = this.registry.dispatch(this.endpointQueue, message.messageType(),
				(supertypes instanceof String text) ? text : null, (classHint instanceof String name) ? name : null);
		KeyPartitions<HeldDelivery> lanes = this.lanes;
		if (lanes != null) {
			// A key's deliveries on one lane, in delivery order; the lane handles them in batches and
			// acknowledges. The dispatch thread goes on at once.
			Object key = message.headers().get(PublishOptions.ORDERING_KEY_HEADER);
			HeldDelivery held = new HeldDelivery(registration, envelope, properties, body, message);
			PredecessorGate gate = this.gate;
			if (gate != null && key instanceof String text) {
				Object previous = message.headers().get(PublishOptions.ORDERING_PREVIOUS_HEADER);
				gate.arrive(text, (previous instanceof String id) ? id : null, held);
				return;
			}
			lanes.submit((key instanceof String text) ? text : null, held);
			return;
		}
		if (handle(registration, message, envelope, properties, body)) {
			getChannel().basicAck(envelope.getDeliveryTag(), false);
		}
	}

	/**
	 * Handles one delivery alone.
	 * @return whether to acknowledge it; when not, it was returned to the queue or stays
	 * unacknowledged
	 */
	private boolean handle(ConsumerRegistration<?> registration, InboundMessage message, Envelope envelope,
			AMQP.BasicProperties properties, byte[] body) throws IOException {
		long startedAt = System.nanoTime();
		try {
			this.processor.process(registration, message);
			this.outageLog.recorded(startedAt);
		}
		catch (UnrecordableDeliveryException ex) {
			try {
				ErrorQueueFallback.publish(getChannel().getConnection(), registration, envelope, properties, body, ex);
			}
			catch (IOException | TimeoutException | RuntimeException publishFailure) {
				logger.warn("Waybill could not move delivery " + properties.getMessageId() + " to "
						+ registration.errorQueue() + ", returning it to the queue: " + publishFailure.getMessage());
				Settlement.pause();
				getChannel().basicNack(envelope.getDeliveryTag(), false, true);
				return false;
			}
		}
		catch (RuntimeException ex) {
			String reason = RecordingFailureReason.of(ex);
			this.outageLog.failed("Waybill could not record delivery " + properties.getMessageId() + " on "
					+ this.queue + ", returning it to the queue: " + reason, reason);
			Settlement.pause();
			getChannel().basicNack(envelope.getDeliveryTag(), false, true);
			return false;
		}
		catch (Error ex) {
			// The JVM's own (an OutOfMemoryError): not the message's failure, and not rethrown, since
			// the client would close the channel as the application's doing, which is never recovered.
			logger.error("Waybill's consumer of " + this.queue + " failed on delivery " + properties.getMessageId()
					+ "; it stays unacknowledged until its channel closes", ex);
			return false;
		}
		finally {
			if (Thread.interrupted()) {
				// A handler's interrupt is not the consumer thread's: the next delivery must not see it.
				logger.debug("A handler left its consumer thread interrupted; the interrupt is cleared");
			}
		}
		return true;
	}

	/** Told when the broker cancels a consumer or closes its channel alone. */
	@FunctionalInterface
	interface LossListener {

		/**
		 * @param cancelled the consumer the broker cancelled, whose channel is still open;
		 * {@literal null} when the broker closed the channel
		 */
		void channelLost(Connection session, String queue, @Nullable InboxConsumer cancelled, String what);

	}

}
