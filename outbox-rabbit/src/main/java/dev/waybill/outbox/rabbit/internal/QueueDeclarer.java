package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.ReceiveEndpoint;

/**
 * Declares a receive endpoint's queue (durable, with the endpoint's arguments), binds it to the
 * exchange of each consumer's message type and to the endpoint's extra bindings, and declares its
 * error queue; an endpoint with partitions gets its {@link PartitionTopology} instead of the queue. Each declaration runs on a short-lived channel of its own, since a refused one
 * closes its channel.
 *
 * @since 0.1
 */
final class QueueDeclarer {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final RabbitTransport transport;

	/** Error queues whose arguments differ from Waybill's, warned about once each. */
	private final Set<String> errorQueuesWarned = ConcurrentHashMap.newKeySet();

	QueueDeclarer(RabbitTransport transport) {
		this.transport = transport;
	}

	void declare(Connection connection, ReceiveEndpoint endpoint) throws IOException {
		Channel channel = connection.createChannel();
		try {
			if (endpoint.partitions() > 1) {
				PartitionTopology.declare(channel, endpoint, this.transport.exchangeType(), this.transport.bindAllKey());
			}
			else {
				declareQueue(channel, endpoint);
			}
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		declareErrorQueue(connection, endpoint.errorQueue(), endpoint.queueArguments());
	}

	private void declareQueue(Channel channel, ReceiveEndpoint endpoint) throws IOException {
		String queue = endpoint.queue();
		channel.queueDeclare(queue, true, false, false, endpoint.queueArguments());
		for (ConsumerRegistration<?> consumer : endpoint.consumers()) {
			String exchange = consumer.messageType();
			channel.exchangeDeclare(exchange, this.transport.exchangeType(), true);
			// Every message of the type: "#" on a topic exchange; the default empty routing key on a
			// direct one; fanout ignores it.
			channel.queueBind(queue, exchange, this.transport.bindAllKey());
		}
		for (EndpointBinding binding : endpoint.bindings()) {
			channel.queueBind(queue, binding.exchange(), binding.routingKey());
		}
	}

	/**
	 * Declares an error queue with its consumer queue's type but none of its limits. One that exists
	 * with other arguments is used as it is, with a warning: declaring it anew would need it deleted.
	 */
	private void declareErrorQueue(Connection connection, String errorQueue, Map<String, Object> queueArguments)
			throws IOException {
		Channel channel = connection.createChannel();
		try {
			channel.queueDeclare(errorQueue, true, false, false, ErrorQueueArguments.of(queueArguments));
			return;
		}
		catch (IOException ex) {
			ShutdownSignalException signal = BrokerErrors.signal(ex);
			if (signal == null || BrokerErrors.channelReplyCode(signal) != AMQP.PRECONDITION_FAILED) {
				throw ex;
			}
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		Channel passive = connection.createChannel();
		try {
			passive.queueDeclarePassive(errorQueue);
		}
		finally {
			RabbitTransport.abortQuietly(passive);
		}
		if (this.errorQueuesWarned.add(errorQueue)) {
			logger.warn("Waybill's error queue '" + errorQueue + "' exists with other arguments than Waybill declares "
					+ ErrorQueueArguments.of(queueArguments) + " (its consumer queue's type, none of its limits); it is "
					+ "used as it is. If it carries a message TTL, a length limit, a delivery limit or dead-lettering, "
					+ "faulted messages can be dropped: move its messages away, delete it, and Waybill declares it anew");
		}
	}

}
