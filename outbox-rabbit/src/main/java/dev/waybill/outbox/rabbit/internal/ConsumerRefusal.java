package dev.waybill.outbox.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;

/**
 * Which failures to connect, declare or consume the receive endpoint takes as the broker refusing
 * (an operator must act: start-up fails, an ERROR after it) rather than as the broker being
 * unreachable.
 *
 * @since 0.1
 */
final class ConsumerRefusal {

	private ConsumerRefusal() {
	}

	/**
	 * Whether the broker was reached and refused: the credentials, or a declaration (a queue with
	 * other arguments, a missing permission, partitions without the consistent-hash exchange). Anything else is taken as the broker being
	 * unreachable.
	 */
	static boolean refused(Throwable failure) {
		if (BrokerErrors.connectionRefused(failure) || BrokerErrors.certificateRejected(failure)
				|| failure instanceof PartitionTopology.PartitionsUnsupportedException) {
			return true;
		}
		ShutdownSignalException signal = BrokerErrors.signal(failure);
		int code = (signal != null) ? BrokerErrors.channelReplyCode(signal) : 0;
		// NOT_FOUND: an extra binding's exchange nobody declared; not a classic queue whose node is
		// down (a node restarted, a rolling upgrade), which is back when the node is
		return code == AMQP.ACCESS_REFUSED || code == AMQP.PRECONDITION_FAILED
				|| (code == AMQP.NOT_FOUND && !BrokerErrors.queueNodeDown(signal));
	}

}
