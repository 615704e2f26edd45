package dev.waybill.benchmarks;

import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;
import org.jspecify.annotations.Nullable;

/**
 * A bare amqp-client publisher: persistent messages, {@code mandatory}, asynchronous publisher
 * confirms with at most {@code window} unconfirmed messages on the channel, the way Waybill's
 * RabbitMQ transport publishes.
 */
final class ConfirmedPublisher {

	private static final long CONFIRM_WAIT_MINUTES = 5;

	private ConfirmedPublisher() {
	}

	/**
	 * Publishes {@code count} {@link BenchOrder} bodies on a new channel and returns when the broker
	 * confirmed all of them.
	 * @param connection the connection
	 * @param exchange the exchange ({@code ""} for the default exchange)
	 * @param routingKey the routing key (the queue, on the default exchange)
	 * @param first the first sequence number
	 * @param count how many
	 * @param window the most unconfirmed messages
	 */
	static void publish(Connection connection, String exchange, String routingKey, long first, int count, int window)
			throws IOException, InterruptedException {
		publish(connection, exchange, routingKey, first, count, window, (seq) -> properties());
	}

	/**
	 * Publishes like {@link #publish(Connection, String, String, long, int, int)}, message
	 * {@code seq} with the ordering key {@code key-<seq % keys>} when {@code keys} is positive.
	 */
	static void publish(Connection connection, String exchange, String routingKey, long first, int count, int window,
			int keys) throws IOException, InterruptedException {
		publish(connection, exchange, routingKey, first, count, window, (seq) -> (keys > 0) ? properties().builder()
			.headers(java.util.Map.of(dev.waybill.outbox.PublishOptions.ORDERING_KEY_HEADER, "key-" + (seq % keys)))
			.build() : properties());
	}

	/**
	 * Publishes like {@link #publish(Connection, String, String, long, int, int)}, message
	 * {@code seq} with the properties {@code properties} makes of it.
	 */
	static void publish(Connection connection, String exchange, String routingKey, long first, int count, int window,
			java.util.function.LongFunction<AMQP.BasicProperties> properties) throws IOException, InterruptedException {
		Channel channel = connection.createChannel();
		try {
			channel.confirmSelect();
			Semaphore room = new Semaphore(window);
			ConcurrentSkipListSet<Long> unconfirmed = new ConcurrentSkipListSet<>();
			CountDownLatch done = new CountDownLatch(count);
			AtomicLong nacked = new AtomicLong();
			channel.addConfirmListener((seqNo, multiple) -> settle(unconfirmed, seqNo, multiple, room, done, null),
					(seqNo, multiple) -> settle(unconfirmed, seqNo, multiple, room, done, nacked));
			for (long seq = first; seq < first + count; seq++) {
				room.acquire();
				unconfirmed.add(channel.getNextPublishSeqNo());
				channel.basicPublish(exchange, routingKey, true, properties.apply(seq), BenchOrder.json(seq));
			}
			if (!done.await(CONFIRM_WAIT_MINUTES, TimeUnit.MINUTES)) {
				throw new IllegalStateException(done.getCount() + " of " + count + " publishes unconfirmed after "
						+ CONFIRM_WAIT_MINUTES + " minutes");
			}
			if (nacked.get() > 0) {
				throw new IllegalStateException("The broker nacked " + nacked.get() + " of " + count + " messages");
			}
		}
		finally {
			try {
				channel.abort();
			}
			catch (IOException | RuntimeException ex) {
				// closed anyway
			}
		}
	}

	private static void settle(ConcurrentSkipListSet<Long> unconfirmed, long seqNo, boolean multiple, Semaphore room,
			CountDownLatch done, @Nullable AtomicLong nacked) {
		int settled = 0;
		if (multiple) {
			while (!unconfirmed.isEmpty() && unconfirmed.first() <= seqNo) {
				if (unconfirmed.pollFirst() != null) {
					settled++;
				}
			}
		}
		else if (unconfirmed.remove(seqNo)) {
			settled = 1;
		}
		if (nacked != null) {
			nacked.addAndGet(settled);
		}
		room.release(settled);
		for (int i = 0; i < settled; i++) {
			done.countDown();
		}
	}

	static AMQP.BasicProperties properties() {
		return MessageProperties.PERSISTENT_BASIC.builder()
			.contentType("application/json")
			.type(BenchOrder.TYPE)
			.messageId(UUID.randomUUID().toString())
			.build();
	}

}
