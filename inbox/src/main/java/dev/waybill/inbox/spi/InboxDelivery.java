package dev.waybill.inbox.spi;

import java.util.Objects;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;

/**
 * One delivery of a batch for {@link DeliveryProcessor#processBatch}: the message and the consumer it
 * was dispatched to.
 *
 * @param consumer the consumer of the queue the message arrived on
 * @param message the delivery
 * @since 0.1
 */
public record InboxDelivery(ConsumerRegistration<?> consumer, InboundMessage message) {

	public InboxDelivery {
		Objects.requireNonNull(consumer, "consumer must not be null");
		Objects.requireNonNull(message, "message must not be null");
	}

}
