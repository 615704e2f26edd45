package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.rabbit.ErrorQueueException;

/**
 * The broker side of the error-queue operations: a short-lived connection per call
 * ({@value RabbitErrorQueues#CONNECTION_NAME}), and reading an error queue with {@code basic.get}
 * and putting back what is not taken with {@code basic.nack(requeue)}.
 *
 * @since 0.1
 */
final class ErrorQueueBroker {

	/**
	 * How long a take keeps looking for chosen messages it did not find, which another reader of the
	 * error queue (a peek) may hold for a moment.
	 */
	static final Duration TAKE_RETRY = Duration.ofSeconds(2);

	private static final Duration TAKE_RETRY_PAUSE = Duration.ofMillis(100);

	private final RabbitTransport transport;

	ErrorQueueBroker(RabbitTransport transport) {
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
	}

	/**
	 * Takes up to {@code max} messages off the head of an error queue without acknowledging them,
	 * turned into views, and puts them all back.
	 */
	<T> List<T> peek(String errorQueue, int max, Function<GetResponse, T> view) {
		return withChannel((channel) -> {
			List<T> messages = new ArrayList<>();
			long lastTag = -1;
			try {
				for (int i = 0; i < max; i++) {
					GetResponse response = channel.basicGet(errorQueue, false);
					if (response == null) {
						break;
					}
					lastTag = response.getEnvelope().getDeliveryTag();
					messages.add(view.apply(response));
				}
			}
			finally {
				requeue(channel, lastTag);
			}
			return messages;
		});
	}

	/**
	 * Takes the chosen messages off an error queue: each is handed to {@code action} and acknowledged
	 * after it returns; the others are put back. A message another reader holds at that moment (a
	 * peek, which puts it back within milliseconds) is invisible: while chosen ids are missing, the
	 * queue is scanned again for up to {@link #TAKE_RETRY} before the call gives up on them.
	 */
	List<String> take(String errorQueue, @Nullable Collection<String> messageIds,
			TakeAction action) {
		Set<String> wanted = (messageIds != null) ? new LinkedHashSet<>(messageIds) : null;
		if (wanted != null && wanted.isEmpty()) {
			return List.of();
		}
		return withChannel((channel) -> {
			List<String> taken = new ArrayList<>();
			long deadline = System.nanoTime() + TAKE_RETRY.toNanos();
			while (true) {
				scan(channel, errorQueue, wanted, action, taken);
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
	private void scan(Channel channel, String errorQueue, @Nullable Set<String> wanted,
			TakeAction action, List<String> taken) throws IOException {
		long lastTag = -1;
		try {
			long depth = channel.queueDeclarePassive(errorQueue).getMessageCount();
			long scan = Math.min(depth, RabbitErrorQueues.MAX_SCAN);
			for (long i = 0; i < scan && (wanted == null || !wanted.isEmpty()); i++) {
				GetResponse response = channel.basicGet(errorQueue, false);
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

	private static void requeue(Channel channel, long lastTag) throws IOException {
		if (lastTag >= 0 && channel.isOpen()) {
			channel.basicNack(lastTag, true, true); // every delivery not acknowledged yet goes back
		}
	}

	<T> T withChannel(ChannelWork<T> work) {
		return withConnection((connection) -> {
			try (Channel channel = connection.createChannel()) {
				return work.run(channel);
			}
		});
	}

	<T> T withConnection(ConnectionWork<T> work) {
		Connection connection;
		try {
			connection = this.transport.newConnection(null, RabbitErrorQueues.CONNECTION_NAME);
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
	interface ConnectionWork<T> {

		T run(Connection connection) throws IOException, TimeoutException;

	}

	@FunctionalInterface
	interface ChannelWork<T> {

		T run(Channel channel) throws IOException, TimeoutException;

	}

	@FunctionalInterface
	interface TakeAction {

		void accept(GetResponse response);

	}
}
