package dev.waybill.outbox.rabbit;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxProcessor;

/**
 * Feeds RabbitMQ deliveries to the inbox. For every consumer it declares the queue (durable,
 * with the consumer's arguments), binds it to the exchange of its message type, declares
 * {@code <queue>_error}, and consumes with manual acknowledgements, the consumer's prefetch and
 * one channel per unit of concurrency, on a connection of its own ({@code waybill-consumer}).
 * <p>
 * Each delivery is acknowledged only after the inbox committed its outcome (processed,
 * duplicate, retry scheduled or faulted: retries and faults leave through the outbox). When the
 * inbox cannot reach the database the delivery is returned to the queue after a pause.
 *
 * @since 0.1
 */
public final class RabbitReceiveEndpoint implements SmartLifecycle {

	/** The name of the consuming connection. */
	public static final String CONNECTION_NAME = "waybill-consumer";

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private static final long INFRASTRUCTURE_PAUSE_MILLIS = 1000;

	private final RabbitTransport transport;

	private final InboxProcessor processor;

	private final List<ConsumerRegistration<?>> consumers;

	private @Nullable Connection connection;

	private @Nullable ExecutorService executor;

	private volatile boolean running;

	/**
	 * Creates an endpoint.
	 * @param transport the transport whose connection settings and exchange type to use
	 * @param processor handles each delivery
	 * @param consumers the consumers to run
	 */
	public RabbitReceiveEndpoint(RabbitTransport transport, InboxProcessor processor,
			List<? extends ConsumerRegistration<?>> consumers) {
		this.transport = Objects.requireNonNull(transport, "transport must not be null");
		this.processor = Objects.requireNonNull(processor, "processor must not be null");
		this.consumers = List.copyOf(consumers);
	}

	@Override
	public synchronized void start() {
		if (this.running || this.consumers.isEmpty()) {
			return;
		}
		int threads = this.consumers.stream().mapToInt(ConsumerRegistration::concurrency).sum();
		AtomicInteger counter = new AtomicInteger();
		this.executor = Executors.newFixedThreadPool(Math.max(1, threads), (task) -> {
			Thread thread = new Thread(task, "waybill-consumer-" + counter.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		try {
			this.connection = this.transport.newConnection(this.executor, CONNECTION_NAME);
			for (ConsumerRegistration<?> consumer : this.consumers) {
				declare(consumer);
				for (int i = 0; i < consumer.concurrency(); i++) {
					consume(consumer);
				}
			}
		}
		catch (IOException | TimeoutException ex) {
			stop();
			throw new IllegalStateException("Waybill could not start consuming from RabbitMQ at " + this.transport
					+ ": " + ex.getMessage(), ex);
		}
		this.running = true;
		logger.info("Waybill consuming " + this.consumers.stream().map(ConsumerRegistration::queue).toList());
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		if (this.connection != null) {
			try {
				this.connection.close(5000);
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Closing the consumer connection failed: " + ex.getMessage());
			}
			this.connection = null;
		}
		if (this.executor != null) {
			this.executor.shutdown();
			try {
				this.executor.awaitTermination(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.executor = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void declare(ConsumerRegistration<?> consumer) throws IOException {
		Channel channel = Objects.requireNonNull(this.connection).createChannel();
		try {
			String exchange = consumer.messageType();
			channel.exchangeDeclare(exchange, this.transport.exchangeType(), true);
			channel.queueDeclare(consumer.queue(), true, false, false, consumer.queueArguments());
			// Every message of the type: "#" on a topic exchange; the default empty routing key on a
			// direct one; fanout ignores it.
			channel.queueBind(consumer.queue(), exchange, "topic".equals(this.transport.exchangeType()) ? "#" : "");
			channel.queueDeclare(consumer.errorQueue(), true, false, false, consumer.queueArguments());
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	private void consume(ConsumerRegistration<?> consumer) throws IOException {
		Channel channel = Objects.requireNonNull(this.connection).createChannel();
		channel.basicQos(consumer.prefetch());
		channel.basicConsume(consumer.queue(), false, new InboxConsumer(channel, consumer));
	}

	private final class InboxConsumer extends DefaultConsumer {

		private final ConsumerRegistration<?> consumer;

		InboxConsumer(Channel channel, ConsumerRegistration<?> consumer) {
			super(channel);
			this.consumer = consumer;
		}

		@Override
		public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
				throws IOException {
			InboundMessage message = inbound(envelope, properties, body);
			try {
				RabbitReceiveEndpoint.this.processor.process(this.consumer, message);
			}
			catch (RuntimeException ex) {
				logger.warn("Waybill could not record delivery " + properties.getMessageId() + " on "
						+ this.consumer.queue() + ", returning it to the queue: " + ex.getMessage());
				pause();
				getChannel().basicNack(envelope.getDeliveryTag(), false, true);
				return;
			}
			getChannel().basicAck(envelope.getDeliveryTag(), false);
		}

		private void pause() {
			try {
				Thread.sleep(INFRASTRUCTURE_PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	static InboundMessage inbound(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
		Map<String, Object> headers = new LinkedHashMap<>();
		if (properties.getHeaders() != null) {
			properties.getHeaders().forEach((name, value) -> headers.put(name, plain(value)));
		}
		Object conversation = headers.get(RabbitHeaders.CONVERSATION_ID);
		return new InboundMessage(properties.getMessageId(), properties.getType(), properties.getContentType(), headers,
				body, properties.getCorrelationId(), conversation != null ? conversation.toString() : null,
				envelope.getExchange(), envelope.getRoutingKey());
	}

	// AMQP strings arrive as LongString; lists and tables are kept as their string form.
	private static Object plain(@Nullable Object value) {
		if (value instanceof LongString || value instanceof List<?> || value instanceof Map<?, ?> || value == null) {
			return String.valueOf(value);
		}
		return value;
	}

}
