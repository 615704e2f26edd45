package dev.waybill.benchmarks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

/**
 * A durable fanout exchange bound to a durable queue, like a consumer's queue in production.
 * Closing it deletes the queue, the exchange and any other queue {@link #alsoDelete(String) named}.
 */
public final class BrokerQueue implements AutoCloseable {

	private final Connection connection;

	private final String exchange;

	private final String name;

	private final List<String> otherQueues = new ArrayList<>();

	private BrokerQueue(Connection connection, String exchange, String name) {
		this.connection = connection;
		this.exchange = exchange;
		this.name = name;
	}

	static BrokerQueue declare(Connection connection, String exchange, String queue) {
		BrokerQueue declared = new BrokerQueue(connection, exchange, queue);
		declared.run((channel) -> {
			channel.exchangeDeclare(exchange, "fanout", true);
			channel.queueDeclare(queue, true, false, false, null);
			channel.queueBind(queue, exchange, "");
		});
		return declared;
	}

	public String exchange() {
		return this.exchange;
	}

	public String name() {
		return this.name;
	}

	/**
	 * Removes every ready message, so the broker's memory and disk do not fill between runs.
	 */
	public void purge() {
		run((channel) -> channel.queuePurge(this.name));
	}

	/**
	 * Returns the number of ready messages.
	 * @return the count
	 */
	public long messageCount() {
		long[] count = new long[1];
		run((channel) -> count[0] = channel.messageCount(this.name));
		return count[0];
	}

	/**
	 * Deletes another queue at close, e.g. one a consumer declared.
	 * @param queue the queue
	 */
	public void alsoDelete(String queue) {
		this.otherQueues.add(queue);
	}

	@Override
	public void close() {
		for (String queue : this.otherQueues) {
			run((channel) -> channel.queueDelete(queue));
		}
		run((channel) -> channel.queueDelete(this.name));
		run((channel) -> channel.exchangeDelete(this.exchange));
	}

	@Override
	public String toString() {
		return "queue " + this.name + " on exchange " + this.exchange;
	}

	private void run(ChannelAction action) {
		try (Channel channel = this.connection.createChannel()) {
			action.run(channel);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Broker operation on " + this + " failed: " + ex.getMessage(), ex);
		}
	}

	@FunctionalInterface
	private interface ChannelAction {

		void run(Channel channel) throws IOException;

	}

}
