package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.spi.ForwardedHeaders;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;

/**
 * The receive endpoint's last resort for a delivery the inbox could not record at all
 * ({@link UnrecordableDeliveryException}): publishes it unchanged (body, properties and headers with
 * their AMQP types, Waybill's own headers as {@link ForwardedHeaders} sets them) to the consumer's
 * error queue, with the reason in {@link InboxHeaders#FAULT_REASON}, and waits for the broker's confirm, so that the delivery can be
 * acknowledged instead of requeued forever.
 */
final class ErrorQueueFallback {

	private static final long CONFIRM_TIMEOUT_MILLIS = 10_000;

	private ErrorQueueFallback() {
	}

	/**
	 * Publishes the delivery to the consumer's error queue and waits for the confirm. When the
	 * inbound headers with Waybill's leave no room in one AMQP frame, the copy goes with Waybill's
	 * own headers only and {@link InboxHeaders#DROPPED_HEADERS} says how many were left out.
	 * @throws IOException when the broker did not take it (the delivery must be requeued then)
	 */
	static void publish(Connection connection, ConsumerRegistration<?> consumer, Envelope envelope,
			AMQP.BasicProperties properties, byte[] body, UnrecordableDeliveryException failure)
			throws IOException, TimeoutException {
		Map<String, Object> headers = ForwardedHeaders.of(consumer,
				(properties.getHeaders() != null) ? properties.getHeaders() : Map.of(), envelope.getExchange(),
				envelope.getRoutingKey());
		headers.put(InboxHeaders.FAULT_REASON, failure.reason());
		try {
			send(connection, consumer, properties.builder().headers(headers).deliveryMode(2).build(), body);
		}
		catch (IllegalArgumentException tooLarge) {
			// amqp-client refuses a content header larger than one frame before it sends anything.
			if (tooLarge.getMessage() == null || !tooLarge.getMessage().contains("max frame size")) {
				throw tooLarge;
			}
			Map<String, Object> own = ForwardedHeaders.waybillsOwn(headers);
			own.put(InboxHeaders.FAULT_REASON, failure.reason());
			own.put(InboxHeaders.DROPPED_HEADERS, (headers.size() - own.size()) + " headers left out: with them the "
					+ "copy's headers did not fit one AMQP frame (" + tooLarge.getMessage() + ")");
			send(connection, consumer, properties.builder().headers(own).deliveryMode(2).build(), body);
		}
	}

	private static void send(Connection connection, ConsumerRegistration<?> consumer, AMQP.BasicProperties forward,
			byte[] body) throws IOException, TimeoutException {
		Channel channel = connection.createChannel();
		try {
			AtomicBoolean returned = new AtomicBoolean();
			channel.addReturnListener((message) -> returned.set(true));
			channel.confirmSelect();
			channel.basicPublish("", consumer.errorQueue(), true, forward, body);
			try {
				channel.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted waiting for the broker to confirm", ex);
			}
			if (returned.get()) {
				throw new IOException("The broker has no queue '" + consumer.errorQueue() + "'");
			}
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

}
