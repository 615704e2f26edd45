package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Channel;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.spi.UnrecordableDeliveryException;

/**
 * How a consumer settles deliveries once the inbox decided: acknowledgements and requeues that a
 * closed channel makes moot, the error-queue fallback for a delivery the inbox cannot record, and
 * the pause before a delivery goes back after the database failed.
 *
 * @since 0.1
 */
final class Settlement {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private static final long INFRASTRUCTURE_PAUSE_MILLIS = 1000;

	private Settlement() {
	}

	/** Settles on the channel; a failure means the channel closed, and the broker delivers it again. */
	static void quietly(String queue, ChannelAction action) {
		try {
			action.run();
		}
		catch (IOException | RuntimeException ex) {
			// The channel closed: the broker delivers it again, and the inbox knows it.
			logger.debug("Waybill could not settle a delivery on " + queue + ": " + ex.getMessage());
		}
	}

	/** Moves a delivery the inbox cannot record to the error queue; false when that failed too. */
	static boolean toErrorQueue(Channel channel, HeldDelivery held, @Nullable RuntimeException reason) {
		try {
			ErrorQueueFallback.publish(channel.getConnection(), held.registration(), held.envelope(), held.properties(),
					held.body(), (UnrecordableDeliveryException) Objects.requireNonNull(reason));
			return true;
		}
		catch (IOException | TimeoutException | RuntimeException publishFailure) {
			logger.warn("Waybill could not move delivery " + held.properties().getMessageId() + " to "
					+ held.registration().errorQueue() + ": " + publishFailure.getMessage());
			return false;
		}
	}

	/** Waits before a delivery the database could not take goes back, so an outage is not a busy loop. */
	static void pause() {
		try {
			Thread.sleep(INFRASTRUCTURE_PAUSE_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** An acknowledgement, rejection or requeue. */
	interface ChannelAction {

		void run() throws IOException;

	}

}
