package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.ShutdownSignalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.inbox.ReceiveEndpoint;

/**
 * Shares the partitions of the endpoints that have them between the instances consuming them, on
 * the connector thread, every second: each instance subscribes to the endpoint's members queue, so
 * its consumer count is the number of instances; each owns {@code ceil(partitions / instances)}
 * at most, taking a free partition by declaring its exclusive owner queue (which the broker refuses
 * while another connection holds it, and deletes when that connection ends) and then consuming it,
 * and handing one it owns beyond its share back by finishing what its lanes handle, closing its
 * channel (what it held goes back to the head of the partition, in order) and deleting the owner
 * queue. An instance that leaves or dies frees its partitions with its connection; the others take
 * them within a second of the broker noticing.
 *
 * @since 0.1
 */
final class PartitionBalancer {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	static final long INTERVAL_MILLIS = 1000;

	private final EndpointStatus status;

	private final EndpointExecutors executors;

	private final QueueDeclarer declarer;

	private final QueueSubscriber subscriber;

	private final ConsumerDrain drain;

	private final Duration shutdownTimeout;

	/** Where this instance starts looking for a free partition, so instances starting together do not contend. */
	private final int offset = ThreadLocalRandom.current().nextInt(1 << 16);

	/** The last failure to balance an endpoint, told once until it changes. Confined to the connector thread. */
	private final Map<String, String> lastFailures = new HashMap<>();

	PartitionBalancer(EndpointStatus status, EndpointExecutors executors, QueueDeclarer declarer,
			QueueSubscriber subscriber, ConsumerDrain drain, Duration shutdownTimeout) {
		this.status = status;
		this.executors = executors;
		this.declarer = declarer;
		this.subscriber = subscriber;
		this.drain = drain;
		this.shutdownTimeout = shutdownTimeout;
	}

	/** Starts sharing on a new connection, which owns nothing yet. */
	void joined(Connection session) {
		this.status.owned().clear();
		this.status.members().clear();
		balance(session);
	}

	private void balance(Connection session) {
		if (!this.status.current(session)) {
			return; // stopped, or a new connection balances on its own
		}
		for (ReceiveEndpoint endpoint : this.status.endpoints()) {
			if (endpoint.partitions() > 1) {
				balance(session, endpoint);
			}
		}
		this.executors.schedule(() -> balance(session), INTERVAL_MILLIS);
	}

	private void balance(Connection session, ReceiveEndpoint endpoint) {
		try {
			if (!this.status.members().contains(endpoint.queue())) {
				join(session, endpoint);
			}
			int instances = instances(session, endpoint);
			int share = (endpoint.partitions() + instances - 1) / instances;
			List<String> owned = new ArrayList<>();
			List<String> free = new ArrayList<>();
			List<String> partitions = this.status.partitionQueues(endpoint.queue());
			for (int i = 0; i < partitions.size(); i++) {
				String partition = partitions.get((i + this.offset) % partitions.size());
				(this.status.owned().contains(partition) ? owned : free).add(partition);
			}
			for (int i = share; i < owned.size(); i++) {
				handOver(session, endpoint, owned.get(i), instances);
			}
			for (int i = 0; i < free.size() && owned.size() < share; i++) {
				if (take(session, endpoint, free.get(i), instances)) {
					owned.add(free.get(i));
				}
			}
			if (this.lastFailures.remove(endpoint.queue()) != null) {
				logger.info("Waybill shares the partitions of " + endpoint.queue() + " again");
			}
		}
		catch (IOException | RuntimeException ex) {
			if (!session.isOpen()) {
				return; // the connection's loss renews it all
			}
			String reason = BrokerErrors.describe(ex);
			if (!reason.equals(this.lastFailures.put(endpoint.queue(), reason))) {
				logger.warn("Waybill could not share the partitions of " + endpoint.queue() + " with the other "
						+ "instances: " + reason + "; it consumes those it owns and tries again in " + INTERVAL_MILLIS
						+ " ms");
			}
		}
	}

	/** Subscribes to the members queue, whose consumer count is the number of instances. */
	private void join(Connection session, ReceiveEndpoint endpoint) throws IOException {
		Channel channel = session.createChannel();
		String queue = endpoint.queue();
		channel.queueDeclare(PartitionTopology.members(endpoint), false, false, true, null);
		// nothing is ever routed to it: the subscription is the membership
		channel.basicConsume(PartitionTopology.members(endpoint), true, new DefaultConsumer(channel));
		channel.addShutdownListener((cause) -> this.status.members().remove(queue));
		this.status.members().add(queue);
	}

	private int instances(Connection session, ReceiveEndpoint endpoint) throws IOException {
		Channel channel = session.createChannel();
		try {
			return Math.max(1, channel.queueDeclarePassive(PartitionTopology.members(endpoint)).getConsumerCount());
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	/**
	 * Takes a partition unless another instance owns it.
	 * @return whether this instance owns it now
	 */
	private boolean take(Connection session, ReceiveEndpoint endpoint, String partition, int instances)
			throws IOException {
		Channel channel = session.createChannel();
		try {
			channel.queueDeclare(PartitionTopology.owner(partition), false, true, true, null);
		}
		catch (IOException ex) {
			ShutdownSignalException signal = BrokerErrors.signal(ex);
			if (signal != null && BrokerErrors.channelReplyCode(signal) == AMQP.RESOURCE_LOCKED) {
				return false;
			}
			throw ex;
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		this.status.owned().add(partition);
		try {
			// a partition nobody consumed meanwhile may have been deleted, by an operator or a reset
			this.declarer.declare(session, endpoint);
			this.subscriber.consume(session, endpoint, partition);
		}
		catch (IOException | RuntimeException ex) {
			// owned but not consumed, it would stay unconsumed: free it for whoever can
			this.status.owned().remove(partition);
			try {
				deleteOwner(session, partition);
			}
			catch (IOException | RuntimeException cleanup) {
				ex.addSuppressed(cleanup); // the connection is going: its end frees the partition
			}
			throw ex;
		}
		logger.info("Waybill consuming " + partition + ", " + describe(endpoint, instances));
		return true;
	}

	/** Hands a partition this instance owns beyond its share to another instance. */
	private void handOver(Connection session, ReceiveEndpoint endpoint, String partition, int instances)
			throws IOException {
		this.status.owned().remove(partition);
		long deadline = System.nanoTime() + this.shutdownTimeout.toNanos();
		for (InboxConsumer consumer : this.status.consumers()) {
			if (consumer.queue().equals(partition) && consumer.connection() == session) {
				consumer.stopping(true);
				if (!this.drain.closeAfterLanes(consumer, deadline)) {
					return;
				}
				consumer.shutdownLanes();
				this.status.consumers().remove(consumer);
			}
		}
		deleteOwner(session, partition);
		logger.info("Waybill handed " + partition + " over to another instance, " + describe(endpoint, instances));
	}

	private static void deleteOwner(Connection session, String partition) throws IOException {
		Channel channel = session.createChannel();
		try {
			channel.queueDelete(PartitionTopology.owner(partition));
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	private static String describe(ReceiveEndpoint endpoint, int instances) {
		return "one of the " + endpoint.partitions() + " partitions of " + endpoint.queue() + " shared by " + instances
				+ ((instances == 1) ? " instance" : " instances");
	}

}
