package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.kernel.BodyPreviews;
import dev.waybill.kernel.PostgresText;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxBrowser;
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
 * @since 0.2
 */
public final class RabbitErrorQueues implements ErrorQueues {

	/** The name of the connections this class opens. */
	public static final String CONNECTION_NAME = "waybill-admin";

	/** The most messages one call looks at. */
	public static final int MAX_SCAN = 10_000;

	/** The most messages one peek returns. */
	public static final int MAX_PEEK = 100;

	/**
	 * How long a take keeps looking for chosen messages it did not find, which another reader of the
	 * error queue (a peek) may hold for a moment.
	 */
	static final Duration TAKE_RETRY = Duration.ofSeconds(2);

	private static final Duration TAKE_RETRY_PAUSE = Duration.ofMillis(100);

	/** Headers the inbox adds to a faulted message; a redriven message goes without them. */
	private static final Set<String> FAULT_HEADERS = Set.of(InboxHeaders.FAULT_REASON, InboxHeaders.FAULT_EXCEPTION_TYPE,
			InboxHeaders.FAULT_MESSAGE, InboxHeaders.FAULT_STACK_TRACE, InboxHeaders.FAULT_ATTEMPTS,
			InboxHeaders.REDELIVERY_COUNT);

	private final RabbitTransport transport;

	private final Map<String, ConsumerRegistration<?>> consumers = new LinkedHashMap<>();

	private final TransactionTemplate transaction;

	private final OutboxWriter writer;

	private final InboxStore inbox;

	private final RelayWakeUp wakeUp;

	private final AdminAudit audit;

	private final Clock clock;

	/**
	 * Creates the operations.
	 * @param transport the transport whose broker and settings to use
	 * @param consumers the consumer endpoints whose error queues to offer
	 * @param transactionManager the transaction manager of the outbox's and the inbox's DataSource
	 * @param writer writes the redrive scopes
	 * @param inbox the inbox whose faults a redrive clears
	 * @param wakeUp wakes the relay after a redrive
	 * @param audit records every change
	 */
	public RabbitErrorQueues(RabbitTransport transport, List<? extends ConsumerRegistration<?>> consumers,
			PlatformTransactionManager transactionManager, OutboxWriter writer, InboxStore inbox, RelayWakeUp wakeUp,
			AdminAudit audit) {
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
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
		return withConnection((connection) -> {
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
	 * {@value JdbcOutboxBrowser#MAX_PREVIEW_BYTES}
	 * @return the messages, in queue order
	 * @throws IllegalArgumentException when no consumer has that queue
	 * @throws ErrorQueueException when the broker cannot be reached or refuses
	 */
	@Override
	public List<ErrorQueueMessage> peek(String queue, int max, int previewBytes) {
		ConsumerRegistration<?> consumer = consumer(queue);
		if (max < 1 || max > MAX_PEEK || previewBytes < 0 || previewBytes > JdbcOutboxBrowser.MAX_PREVIEW_BYTES) {
			throw new IllegalArgumentException("max must be 1 to " + MAX_PEEK + " and previewBytes 0 to "
					+ JdbcOutboxBrowser.MAX_PREVIEW_BYTES + " (as for an outbox scope), were " + max + " and " + previewBytes);
		}
		return withChannel((channel) -> {
			List<ErrorQueueMessage> messages = new ArrayList<>();
			long lastTag = -1;
			try {
				for (int i = 0; i < max; i++) {
					GetResponse response = channel.basicGet(consumer.errorQueue(), false);
					if (response == null) {
						break;
					}
					lastTag = response.getEnvelope().getDeliveryTag();
					messages.add(view(response, previewBytes));
				}
			}
			finally {
				requeue(channel, lastTag);
			}
			return messages;
		});
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
		List<String> moved = take(consumer, messageIds, (response) -> {
			OutboxMessage message = redriven(consumer, response);
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
		List<String> dropped = take(consumer, messageIds, (response) -> faults.put(
				String.valueOf(response.getProps().getMessageId()), String.valueOf(header(response, InboxHeaders.FAULT_MESSAGE))));
		this.audit.record(actor, "error-queue.discard", "messages from '" + consumer.errorQueue() + "' with their faults "
				+ faults, dropped.size());
		return dropped;
	}

	/**
	 * Takes the chosen messages off an error queue: each is handed to {@code action} and acknowledged
	 * after it returns; the others are put back. A message another reader holds at that moment (a
	 * peek, which puts it back within milliseconds) is invisible: while chosen ids are missing, the
	 * queue is scanned again for up to {@link #TAKE_RETRY} before the call gives up on them.
	 */
	private List<String> take(ConsumerRegistration<?> consumer, @Nullable Collection<String> messageIds,
			TakeAction action) {
		Set<String> wanted = (messageIds != null) ? new LinkedHashSet<>(messageIds) : null;
		if (wanted != null && wanted.isEmpty()) {
			return List.of();
		}
		return withChannel((channel) -> {
			List<String> taken = new ArrayList<>();
			long deadline = System.nanoTime() + TAKE_RETRY.toNanos();
			while (true) {
				scan(channel, consumer, wanted, action, taken);
				if (wanted == null || wanted.isEmpty() || System.nanoTime() - deadline >= 0) {
					return taken;
				}
				try {
					Thread.sleep(TAKE_RETRY_PAUSE.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return taken;
				}
			}
		});
	}

	/**
	 * One pass over the error queue: takes the messages in {@code wanted} (removing each id taken from
	 * it; every message when it is {@literal null}), puts the others back.
	 */
	private void scan(Channel channel, ConsumerRegistration<?> consumer, @Nullable Set<String> wanted,
			TakeAction action, List<String> taken) throws IOException {
		long lastTag = -1;
		try {
			long depth = channel.queueDeclarePassive(consumer.errorQueue()).getMessageCount();
			long scan = Math.min(depth, MAX_SCAN);
			for (long i = 0; i < scan && (wanted == null || !wanted.isEmpty()); i++) {
				GetResponse response = channel.basicGet(consumer.errorQueue(), false);
				if (response == null) {
					break;
				}
				long tag = response.getEnvelope().getDeliveryTag();
				String id = response.getProps().getMessageId();
				if (wanted != null && !wanted.contains(id)) {
					lastTag = tag; // put back at the end
					continue;
				}
				try {
					action.accept(response);
				}
				catch (RuntimeException ex) {
					lastTag = tag;
					throw ex;
				}
				channel.basicAck(tag, false);
				taken.add(String.valueOf(id));
				if (wanted != null) {
					wanted.remove(id);
				}
			}
		}
		finally {
			requeue(channel, lastTag);
		}
	}

	private OutboxMessage redriven(ConsumerRegistration<?> consumer, GetResponse response) {
		InboundMessage inbound = RabbitReceiveEndpoint.inbound(response.getEnvelope(), response.getProps(),
				response.getBody());
		Map<String, Object> headers = new LinkedHashMap<>(inbound.headers());
		FAULT_HEADERS.forEach(headers::remove);
		UUID id = uuid(inbound.messageId());
		// Through the default exchange straight to the consumer's queue: other consumers bound to the
		// original exchange handled the message already.
		return new OutboxMessage(id, "", consumer.queue(), PostgresText.column(Objects.toString(inbound.messageType(), "")),
				PostgresText.column(Objects.toString(inbound.contentType(), "")), headers, inbound.body(),
				PostgresText.column(inbound.correlationId()), PostgresText.column(inbound.conversationId()), null,
				this.clock.instant(), null);
	}

	private static UUID uuid(@Nullable String id) {
		if (id != null) {
			try {
				UUID parsed = UUID.fromString(id);
				if (parsed.toString().equalsIgnoreCase(id)) {
					return parsed;
				}
			}
			catch (IllegalArgumentException ex) {
				// not a UUID: the message gets a new id (the outbox keys messages by UUID)
			}
		}
		return TimeOrderedUuids.next();
	}

	private static ErrorQueueMessage view(GetResponse response, int previewBytes) {
		AMQP.BasicProperties props = response.getProps();
		byte[] body = response.getBody();
		boolean truncated = body.length > previewBytes;
		Map<String, Object> headers = new LinkedHashMap<>();
		if (props.getHeaders() != null) {
			props.getHeaders().forEach((name, value) -> headers.put(name, AmqpMessages.inboundValue(value)));
		}
		Object attempts = headers.get(InboxHeaders.FAULT_ATTEMPTS);
		return new ErrorQueueMessage(props.getMessageId(), props.getType(), props.getContentType(),
				text(headers.get(InboxHeaders.FAULT_MESSAGE)), text(headers.get(InboxHeaders.FAULT_EXCEPTION_TYPE)),
				(attempts instanceof Number number) ? number.intValue() : null,
				text(headers.get(InboxHeaders.ORIGINAL_EXCHANGE)), text(headers.get(InboxHeaders.ORIGINAL_ROUTING_KEY)),
				(props.getTimestamp() != null) ? props.getTimestamp().toInstant() : null, BodyPreviews.headers(headers),
				BodyPreviews.text(truncated ? Arrays.copyOf(body, previewBytes) : body, truncated), body.length, truncated);
	}

	private static @Nullable String text(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		String text = BodyPreviews.headers(Map.of("v", value)).get("v");
		return text;
	}

	private static @Nullable Object header(GetResponse response, String name) {
		Map<String, Object> headers = response.getProps().getHeaders();
		return (headers != null) ? AmqpMessages.inboundValue(headers.get(name)) : null;
	}

	private static void requeue(Channel channel, long lastTag) throws IOException {
		if (lastTag >= 0 && channel.isOpen()) {
			channel.basicNack(lastTag, true, true); // every delivery not acknowledged yet goes back
		}
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

	private <T> T withChannel(ChannelWork<T> work) {
		return withConnection((connection) -> {
			try (Channel channel = connection.createChannel()) {
				return work.run(channel);
			}
		});
	}

	private <T> T withConnection(ConnectionWork<T> work) {
		Connection connection;
		try {
			connection = this.transport.newConnection(null, CONNECTION_NAME);
		}
		catch (IOException | TimeoutException ex) {
			throw new ErrorQueueException("RabbitMQ at " + this.transport + " is unreachable: " + BrokerErrors.describe(ex), ex);
		}
		try {
			return work.run(connection);
		}
		catch (IOException | TimeoutException ex) {
			throw new ErrorQueueException("RabbitMQ refused: " + BrokerErrors.describe(ex), ex);
		}
		finally {
			try {
				connection.abort(5000);
			}
			catch (RuntimeException ex) {
				// closing anyway
			}
		}
	}

	@FunctionalInterface
	private interface ConnectionWork<T> {

		T run(Connection connection) throws IOException, TimeoutException;

	}

	@FunctionalInterface
	private interface ChannelWork<T> {

		T run(Channel channel) throws IOException, TimeoutException;

	}

	@FunctionalInterface
	private interface TakeAction {

		void accept(GetResponse response);

	}


}
