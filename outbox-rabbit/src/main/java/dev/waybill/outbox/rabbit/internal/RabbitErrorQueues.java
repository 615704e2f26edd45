package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.kernel.BodyPreviews;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.rabbit.ErrorQueueException;
import dev.waybill.outbox.rabbit.ErrorQueueInfo;
import dev.waybill.outbox.rabbit.ErrorQueueMessage;
import dev.waybill.outbox.rabbit.ErrorQueues;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * Operations on the consumers' error queues ({@code <queue>_error}) for operators: their depth,
 * a look at their messages, and moving messages back to their consumer's queue (redrive) or
 * dropping them (discard). Each call opens a short-lived connection of its own
 * ({@value #CONNECTION_NAME}), so it never disturbs the publisher's or the consumers'.
 * <p>
 * <b>Peek</b> takes messages with {@code basic.get} without acknowledging them and then returns
 * them with {@code basic.nack(requeue)}: nothing is lost, and RabbitMQ puts a requeued message back
 * at its place in the queue where it can (classic queues; a quorum queue without a delivery limit
 * puts it at its tail).
 * While a call runs, the messages it holds are invisible to other readers of the error queue, and
 * a requeued message carries the {@code redelivered} flag. A redrive or discard of chosen ids that
 * does not find them all (another operator's page peeking the queue at that moment) looks again for
 * up to two seconds; the ids still missing then are left out of its result.
 * <p>
 * <b>Redrive</b> goes through the outbox: for each chosen message, one database transaction writes
 * an outbox scope holding the message (id, type, body and headers as they were, without the fault
 * headers) addressed to the consumer's queue through the default exchange, and clears the
 * consumer's inbox fault for that message id, so the inbox treats it as new work; only after the
 * commit is the error-queue copy acknowledged. A crash between the commit and the acknowledgement
 * leaves the copy in the error queue as well: redriving it again is harmless, since the consumer's
 * inbox then acknowledges the duplicate without running the handler.
 * <p>
 * Every redrive and discard is recorded by the {@link AdminAudit}. Thread-safe.
 *
 * @since 0.1
 */
public final class RabbitErrorQueues implements ErrorQueues {

	/** The name of the connections this class opens. */
	public static final String CONNECTION_NAME = "waybill-admin";

	/** The most messages one call looks at. */
	public static final int MAX_SCAN = 10_000;

	/** The most messages one peek returns. */
	public static final int MAX_PEEK = 100;

	private final ErrorQueueBroker broker;

	private final Map<String, ConsumerRegistration<?>> consumers = new LinkedHashMap<>();

	private final TransactionTemplate transaction;

	private final OutboxWriter writer;

	private final InboxAdmin inbox;

	private final RelayWakeUp wakeUp;

	private final AdminAudit audit;

	private final Clock clock;

	/**
	 * Creates the operations.
	 * @param transport the transport whose broker and settings to use
	 * @param consumers the consumer endpoints whose error queues to offer
	 * @param transactionManager the transaction manager of the outbox's and the inbox's DataSource
	 * @param writer writes the redrive scopes
	 * @param inbox clears the inbox faults of redriven messages
	 * @param wakeUp wakes the relay after a redrive
	 * @param audit records every change
	 */
	public RabbitErrorQueues(RabbitTransport transport, List<? extends ConsumerRegistration<?>> consumers,
			PlatformTransactionManager transactionManager, OutboxWriter writer, InboxAdmin inbox, RelayWakeUp wakeUp,
			AdminAudit audit) {
		this.broker = new ErrorQueueBroker(transport);
		consumers.forEach((consumer) -> this.consumers.put(consumer.queue(), consumer));
		this.transaction = new TransactionTemplate(transactionManager);
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.inbox = Objects.requireNonNull(inbox, "inbox must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
		this.audit = Objects.requireNonNull(audit, "audit must not be null");
		this.clock = Clock.systemUTC();
	}

	/**
	 * Returns the error queue of each consumer endpoint with its depth, read with a passive declare.
	 * @return one entry per consumer, in registration order
	 * @throws ErrorQueueException when the broker cannot be reached
	 */
	@Override
	public List<ErrorQueueInfo> queues() {
		return this.broker.withConnection((connection) -> {
			List<ErrorQueueInfo> queues = new ArrayList<>();
			for (ConsumerRegistration<?> consumer : this.consumers.values()) {
				try (Channel channel = connection.createChannel()) {
					AMQP.Queue.DeclareOk ok = channel.queueDeclarePassive(consumer.errorQueue());
					queues.add(new ErrorQueueInfo(consumer.queue(), consumer.errorQueue(), ok.getMessageCount(), null));
				}
				catch (IOException | TimeoutException ex) {
					// a failed passive declare closes the channel; the next queue gets a new one
					queues.add(new ErrorQueueInfo(consumer.queue(), consumer.errorQueue(), -1, BrokerErrors.describe(ex)));
				}
			}
			return queues;
		});
	}

	/**
	 * Looks at the first messages of a consumer's error queue and puts them back.
	 * @param queue the consumer's queue (or its error queue)
	 * @param max the most messages, 1 to {@value #MAX_PEEK}
	 * @param previewBytes the most bytes of each body to return, 0 to
	 * {@value BodyPreviews#MAX_PREVIEW_BYTES}
	 * @return the messages, in queue order
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses
	 */
	@Override
	public List<ErrorQueueMessage> peek(String queue, int max, int previewBytes) {
		ConsumerRegistration<?> consumer = consumer(queue);
		if (max < 1 || max > MAX_PEEK || previewBytes < 0 || previewBytes > BodyPreviews.MAX_PREVIEW_BYTES) {
			throw new IllegalArgumentException("max must be 1 to " + MAX_PEEK + " and previewBytes 0 to "
					+ BodyPreviews.MAX_PREVIEW_BYTES + " (as for an outbox scope), were " + max + " and " + previewBytes);
		}
		return this.broker.peek(consumer.errorQueue(), max, (response) -> ErrorQueueViews.view(response, previewBytes));
	}

	/**
	 * Moves messages of a consumer's error queue back to its queue, through the outbox (see the class
	 * description), and clears their inbox faults so the consumer handles them again.
	 * @param queue the consumer's queue (or its error queue)
	 * @param messageIds the ids of the messages to move, or {@literal null} for every message
	 * @param actor who asks, for the audit
	 * @return the ids of the messages moved
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses; messages moved before
	 * the failure stay moved, the others stay in the error queue
	 */
	@Override
	public List<String> redrive(String queue, @Nullable Collection<String> messageIds, String actor) {
		ConsumerRegistration<?> consumer = consumer(queue);
		List<String> moved = this.broker.take(consumer.errorQueue(), messageIds, (response) -> {
			OutboxMessage message = ErrorQueueViews.redriven(consumer.queue(), response, this.clock.instant());
			this.transaction.executeWithoutResult((status) -> {
				this.writer.checkTransaction();
				this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.of(message), null, null));
				this.inbox.clearFault(message.messageId(), consumer.consumerId());
			});
			this.wakeUp.committed();
		});
		this.audit.record(actor, "error-queue.redrive", "messages " + moved + " from '" + consumer.errorQueue()
				+ "' back to '" + consumer.queue() + "' through the outbox", moved.size());
		return moved;
	}

	/**
	 * Drops messages of a consumer's error queue for good.
	 * @param queue the consumer's queue (or its error queue)
	 * @param messageIds the ids of the messages to drop
	 * @param actor who asks, for the audit
	 * @return the ids of the messages dropped
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses
	 */
	@Override
	public List<String> discard(String queue, Collection<String> messageIds, String actor) {
		ConsumerRegistration<?> consumer = consumer(queue);
		Objects.requireNonNull(messageIds, "messageIds must not be null");
		Map<String, String> faults = new LinkedHashMap<>();
		List<String> dropped = this.broker.take(consumer.errorQueue(), messageIds, (response) -> faults.put(
				String.valueOf(response.getProps().getMessageId()), String.valueOf(ErrorQueueViews.header(response, InboxHeaders.FAULT_MESSAGE))));
		this.audit.record(actor, "error-queue.discard", "messages from '" + consumer.errorQueue() + "' with their faults "
				+ faults, dropped.size());
		return dropped;
	}

	private ConsumerRegistration<?> consumer(String queue) {
		Objects.requireNonNull(queue, "queue must not be null");
		for (ConsumerRegistration<?> consumer : this.consumers.values()) {
			if (consumer.queue().equals(queue) || consumer.errorQueue().equals(queue)) {
				return consumer;
			}
		}
		throw new IllegalArgumentException("No consumer endpoint has the queue '" + queue + "'; the endpoints are "
				+ this.consumers.keySet());
	}

}
