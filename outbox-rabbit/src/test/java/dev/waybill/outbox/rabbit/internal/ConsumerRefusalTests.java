package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import org.junit.jupiter.api.Test;

/**
 * Which failures to declare or consume the receive endpoint takes as the broker refusing (an
 * operator must act: start-up fails, an ERROR after it) rather than as the broker being unavailable.
 */
class ConsumerRefusalTests {

	@Test
	void aClassicQueueWhoseNodeIsDownIsUnavailableNotRefused() {
		// what RabbitMQ answers queue.declare while the node of a classic queue restarts
		IOException failure = channelClosed(AMQP.NOT_FOUND,
				"NOT_FOUND - home node 'rabbit-1@host' of durable queue 'billing.orders' in vhost '/' is down or inaccessible");

		assertThat(BrokerErrors.queueNodeDown(BrokerErrors.signal(failure))).isTrue();
		assertThat(ConsumerRefusal.refused(failure)).isFalse();
	}

	@Test
	void aMissingExchangeAMissingPermissionAndOtherArgumentsAreRefused() {
		assertThat(ConsumerRefusal.refused(channelClosed(AMQP.NOT_FOUND, "NOT_FOUND - no exchange 'regions' in vhost '/'")))
			.isTrue();
		assertThat(ConsumerRefusal.refused(channelClosed(AMQP.ACCESS_REFUSED,
				"ACCESS_REFUSED - access to queue 'billing.orders' in vhost '/' refused for user 'guest'"))).isTrue();
		assertThat(ConsumerRefusal.refused(channelClosed(AMQP.PRECONDITION_FAILED,
				"PRECONDITION_FAILED - inequivalent arg 'durable' for queue 'billing.orders' in vhost '/'"))).isTrue();
		assertThat(BrokerErrors.queueNodeDown(BrokerErrors.signal(
				channelClosed(AMQP.NOT_FOUND, "NOT_FOUND - no exchange 'regions' in vhost '/'")))).isFalse();
	}

	@Test
	void aLostConnectionIsNotRefused() {
		assertThat(ConsumerRefusal.refused(new IOException("Connection reset"))).isFalse();
	}

	private static IOException channelClosed(int code, String text) {
		ShutdownSignalException signal = new ShutdownSignalException(false, false,
				new AMQImpl.Channel.Close(code, text, 50, 10), null);
		return new IOException(signal);
	}

}
