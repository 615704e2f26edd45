package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;

/**
 * Moves deliveries a {@link PredecessorGate} holds to the tail of the queue they came from: a copy
 * of each (body and properties unchanged, {@value PredecessorGate#HELD_SINCE_HEADER} added) is
 * published through the default exchange on a channel of its own and confirmed, and only then is
 * each original acknowledged. A copy the broker did not confirm leaves every original
 * unacknowledged; an original the channel could not acknowledge comes back as a duplicate, which
 * the inbox drops.
 *
 * @since 0.1
 */
final class TailMover implements PredecessorGate.Mover {

	private static final long CONFIRM_TIMEOUT_MILLIS = 10_000;

	private final Channel consuming;

	private final String queue;

	/**
	 * @param consuming the channel the deliveries came on, which acknowledges them
	 * @param queue the broker queue it consumes
	 */
	TailMover(Channel consuming, String queue) {
		this.consuming = consuming;
		this.queue = queue;
	}

	@Override
	public void move(List<HeldDelivery> deliveries, List<Long> heldSince) throws IOException {
		Channel channel = this.consuming.getConnection().createChannel();
		try {
			AtomicBoolean returned = new AtomicBoolean();
			channel.addReturnListener((message) -> returned.set(true));
			channel.confirmSelect();
			for (int i = 0; i < deliveries.size(); i++) {
				HeldDelivery delivery = deliveries.get(i);
				Map<String, Object> headers = new LinkedHashMap<>();
				if (delivery.properties().getHeaders() != null) {
					headers.putAll(delivery.properties().getHeaders());
				}
				headers.put(PredecessorGate.HELD_SINCE_HEADER, heldSince.get(i));
				AMQP.BasicProperties copy = delivery.properties().builder().headers(headers).build();
				channel.basicPublish("", this.queue, true, copy, delivery.body());
			}
			channel.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MILLIS);
			if (returned.get()) {
				throw new IOException("The broker has no queue '" + this.queue + "'");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("Interrupted waiting for the broker to confirm", ex);
		}
		catch (TimeoutException ex) {
			throw new IOException("The broker did not confirm the copies within " + CONFIRM_TIMEOUT_MILLIS + " ms", ex);
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
		for (HeldDelivery delivery : deliveries) {
			this.consuming.basicAck(delivery.tag(), false);
		}
	}

}
