package dev.waybill.outbox.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;

/**
 * A delivery held for a consumer's lane: what the inbox handles, and what settling it or moving it
 * to the error queue needs.
 *
 * @since 0.1
 */
record HeldDelivery(ConsumerRegistration<?> registration, Envelope envelope, AMQP.BasicProperties properties,
		byte[] body, InboundMessage message) {

	long tag() {
		return this.envelope.getDeliveryTag();
	}

}
