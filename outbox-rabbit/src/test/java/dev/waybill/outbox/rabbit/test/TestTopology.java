package dev.waybill.outbox.rabbit.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;

/**
 * Exchanges and queues of one test, with unique names, on a connection of its own. Closing it
 * deletes every exchange and queue it declared or was told about, so tests run in any order and
 * repeat cleanly.
 */
public final class TestTopology implements AutoCloseable {

	/** How long {@link BoundQueue#next()} waits for a message. */
	public static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(10);

	private final Connection connection;

	private final String prefix;

	private final List<String> exchanges = new ArrayList<>();

	private final List<String> queues = new ArrayList<>();

	private Channel channel;

	TestTopology(Connection connection, String prefix) {
		this.connection = connection;
		this.prefix = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
		this.channel = newChannel();
	}

	/**
	 * Returns a name no other test uses.
	 * @param role what the name is for, e.g. {@code orders}
	 * @return {@code waybill-test.<prefix>.<role>.<8 hex digits>}
	 */
	public String uniqueName(String role) {
		return "waybill-test." + this.prefix + "." + role + "." + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * Declares a uniquely named, non-durable exchange.
	 * @param type the exchange type
	 * @return its name
	 */
	public String exchange(String type) {
		String name = uniqueName(type);
		try {
			channel().exchangeDeclare(name, type, false);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not declare exchange " + name, ex);
		}
		return deleteLater(name);
	}

	/**
	 * Records an exchange something else declares (the transport, for a message type), to delete
	 * it on {@link #close()}.
	 * @param exchange the exchange
	 * @return the exchange
	 */
	public String deleteLater(String exchange) {
		this.exchanges.add(exchange);
		return exchange;
	}

	/**
	 * Declares a uniquely named queue and binds it to an exchange. Messages stay in the queue until
	 * the first {@link BoundQueue#next()} or {@link BoundQueue#drain()}, which starts consuming, so
	 * a test may consume from the queue its own way instead.
	 * @param exchange the exchange
	 * @param bindingKey the binding key
	 * @return the queue
	 */
	public BoundQueue bind(String exchange, String bindingKey) {
		return bind(exchange, bindingKey, Map.of());
	}

	/**
	 * Declares a uniquely named queue with arguments and binds it, like {@link #bind(String, String)}.
	 * @param exchange the exchange
	 * @param bindingKey the binding key
	 * @param arguments the queue's arguments, e.g. {@code x-max-length}
	 * @return the queue
	 */
	public BoundQueue bind(String exchange, String bindingKey, Map<String, Object> arguments) {
		return new BoundQueue(queue(exchange, bindingKey, arguments), exchange, this);
	}

	/**
	 * Declares a uniquely named queue with arguments and binds it, without consuming from it.
	 * @param exchange the exchange
	 * @param bindingKey the binding key
	 * @param arguments the queue's arguments, e.g. {@code x-max-length}
	 * @return the queue's name
	 */
	public String queue(String exchange, String bindingKey, Map<String, Object> arguments) {
		String queue = uniqueName("queue");
		try {
			channel().queueDeclare(queue, false, false, false, arguments);
			this.queues.add(queue);
			channel().queueBind(queue, exchange, bindingKey);
			return queue;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not bind a queue to " + exchange, ex);
		}
	}

	/**
	 * Declares a uniquely named exchange and a queue bound to it, like {@link #bind(String, String)}.
	 * @param type the exchange type
	 * @param bindingKey the binding key
	 * @return the queue
	 */
	public BoundQueue exchangeWithQueue(String type, String bindingKey) {
		return bind(exchange(type), bindingKey);
	}

	/**
	 * Tells whether an exchange exists, with a passive declare.
	 * @param exchange the exchange
	 * @return whether it exists
	 */
	public boolean exchangeExists(String exchange) {
		try (Channel check = this.connection.createChannel()) {
			check.exchangeDeclarePassive(exchange);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Returns this topology's own channel, for declarations of its own; a failed declaration closes
	 * it and it is reopened on next use.
	 * @return the channel
	 */
	public Channel channel() {
		if (!this.channel.isOpen()) {
			this.channel = newChannel();
		}
		return this.channel;
	}

	@Override
	public void close() {
		try {
			for (String queue : this.queues) {
				delete((ch) -> ch.queueDelete(queue));
			}
			for (String exchange : this.exchanges) {
				delete((ch) -> ch.exchangeDelete(exchange));
			}
		}
		finally {
			try {
				this.connection.close(5000);
			}
			catch (IOException | RuntimeException ex) {
				// closed anyway
			}
		}
	}

	private void delete(ChannelAction action) {
		try {
			action.run(channel());
		}
		catch (IOException | RuntimeException ex) {
			// already gone (a 404 closes the channel; the next delete reopens it)
		}
	}

	private Channel newChannel() {
		try {
			return this.connection.createChannel();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not open a channel to the test broker", ex);
		}
	}

	@FunctionalInterface
	private interface ChannelAction {

		void run(Channel channel) throws IOException;

	}

	/**
	 * A queue bound to an exchange. The first {@link #next()} or {@link #drain()} starts an
	 * auto-ack consumer that moves deliveries into a local buffer.
	 */
	public static final class BoundQueue {

		private final String name;

		private final String exchange;

		private final TestTopology topology;

		private final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();

		private boolean consuming;

		BoundQueue(String name, String exchange, TestTopology topology) {
			this.name = name;
			this.exchange = exchange;
			this.topology = topology;
		}

		public String name() {
			return this.name;
		}

		public String exchange() {
			return this.exchange;
		}

		/**
		 * Returns the next delivery, waiting at most {@link #RECEIVE_TIMEOUT}.
		 * @return the delivery
		 * @throws AssertionError when none arrives in time
		 */
		public Delivery next() {
			consume();
			try {
				Delivery delivery = this.deliveries.poll(RECEIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
				if (delivery == null) {
					throw new AssertionError("No message arrived on queue " + this.name + " within " + RECEIVE_TIMEOUT);
				}
				return delivery;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted while waiting for a message on " + this.name, ex);
			}
		}

		/**
		 * Returns the next deliveries, waiting at most {@link #RECEIVE_TIMEOUT} for each.
		 * @param count how many
		 * @return the deliveries in arrival order
		 */
		public List<Delivery> next(int count) {
			List<Delivery> received = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				received.add(next());
			}
			return received;
		}

		/**
		 * Returns the deliveries received so far without waiting, and forgets them.
		 * @return the deliveries
		 */
		public List<Delivery> drain() {
			consume();
			List<Delivery> received = new ArrayList<>();
			this.deliveries.drainTo(received);
			return received;
		}

		private synchronized void consume() {
			if (this.consuming) {
				return;
			}
			try {
				this.topology.channel().basicConsume(this.name, true, (tag, delivery) -> this.deliveries.add(delivery),
						(tag) -> {
						});
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not consume from " + this.name, ex);
			}
			this.consuming = true;
		}

	}

}
