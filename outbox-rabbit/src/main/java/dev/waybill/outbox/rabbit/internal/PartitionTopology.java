package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.PublishOptions;

/**
 * The broker topology of a receive endpoint with {@linkplain ReceiveEndpoint#partitions()
 * partitions}: a consistent-hash exchange {@code <queue>.partitions} that hashes the ordering key
 * header, bound to the exchange of each consumer's message type and to the endpoint's extra
 * bindings; one queue per partition, {@code <queue>.partition-<i>}, bound to it with equal weight
 * and declared single-active-consumer, so that even two instances that both think they own a
 * partition never handle its keys at once; and a members queue {@code <queue>.partitions.members}
 * that every consuming instance subscribes to, whose consumer count is the number of instances.
 * An instance owns a partition while its connection holds the exclusive queue
 * {@code <queue>.partition-<i>.owner}: the broker deletes it when that connection ends.
 *
 * @since 0.1
 */
final class PartitionTopology {

	static final String EXCHANGE_TYPE = "x-consistent-hash";

	static final String PLUGIN = "rabbitmq_consistent_hash_exchange";

	/** Each partition queue's share of the hash space: all equal. */
	private static final String WEIGHT = "1";

	private PartitionTopology() {
	}

	static String exchange(ReceiveEndpoint endpoint) {
		return endpoint.queue() + ".partitions";
	}

	static String queue(ReceiveEndpoint endpoint, int partition) {
		return endpoint.queue() + ".partition-" + partition;
	}

	static String owner(String partitionQueue) {
		return partitionQueue + ".owner";
	}

	static String members(ReceiveEndpoint endpoint) {
		return endpoint.queue() + ".partitions.members";
	}

	/**
	 * The arguments of each partition queue: the endpoint's, single-active-consumer added.
	 */
	static Map<String, Object> queueArguments(ReceiveEndpoint endpoint) {
		Map<String, Object> arguments = new LinkedHashMap<>(endpoint.queueArguments());
		arguments.put("x-single-active-consumer", true);
		return arguments;
	}

	/**
	 * Declares the endpoint's partition exchange, bindings, partition queues and members queue on
	 * a channel the caller closes.
	 * @throws PartitionsUnsupportedException when the broker has no consistent-hash exchange type
	 */
	static void declare(Channel channel, ReceiveEndpoint endpoint, String exchangeType, String bindAllKey)
			throws IOException {
		String exchange = exchange(endpoint);
		try {
			channel.exchangeDeclare(exchange, EXCHANGE_TYPE, true, false,
					Map.of("hash-header", PublishOptions.ORDERING_KEY_HEADER));
		}
		catch (IOException ex) {
			throw unsupported(endpoint, ex);
		}
		for (ConsumerRegistration<?> consumer : endpoint.consumers()) {
			channel.exchangeDeclare(consumer.messageType(), exchangeType, true);
			channel.exchangeBind(exchange, consumer.messageType(), bindAllKey);
		}
		for (EndpointBinding binding : endpoint.bindings()) {
			channel.exchangeBind(exchange, binding.exchange(), binding.routingKey());
		}
		Map<String, Object> arguments = queueArguments(endpoint);
		for (int i = 0; i < endpoint.partitions(); i++) {
			String queue = queue(endpoint, i);
			channel.queueDeclare(queue, true, false, false, arguments);
			channel.queueBind(queue, exchange, WEIGHT);
		}
		channel.queueDeclare(members(endpoint), false, false, true, null);
	}

	private static IOException unsupported(ReceiveEndpoint endpoint, IOException ex) {
		ShutdownSignalException signal = BrokerErrors.signal(ex);
		if (signal != null && signal.getReason() instanceof AMQP.Connection.Close close
				&& close.getReplyCode() == AMQP.COMMAND_INVALID && close.getReplyText().contains("exchange type")) {
			return new PartitionsUnsupportedException("queue '" + endpoint.queue() + "' has " + endpoint.partitions()
					+ " partitions, which need RabbitMQ's " + EXCHANGE_TYPE + " exchange type, and the broker has none ("
					+ close.getReplyText() + "): enable its plugin with 'rabbitmq-plugins enable " + PLUGIN
					+ "', or set the endpoint's partitions to 1");
		}
		return ex;
	}

	/**
	 * The broker cannot route to partitions: an operator must enable a plugin or drop the
	 * partitions. Its message says which; it carries no broker signal, so it is described as it is.
	 */
	static final class PartitionsUnsupportedException extends IOException {

		private static final long serialVersionUID = 1L;

		PartitionsUnsupportedException(String message) {
			super(message);
		}

	}

}
