package dev.waybill.outbox.rabbit.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.outbox.rabbit.RabbitHeaders;

/**
 * Reads a RabbitMQ delivery as the inbox's {@link InboundMessage}: its properties, its headers as
 * Java values, and where it came from.
 *
 * @since 0.1
 */
final class InboundMessages {

	private InboundMessages() {
	}

	static InboundMessage of(Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
		Map<String, Object> headers = new LinkedHashMap<>();
		if (properties.getHeaders() != null) {
			properties.getHeaders().forEach((name, value) -> headers.put(name, AmqpMessages.inboundValue(value)));
		}
		Object conversation = headers.get(RabbitHeaders.CONVERSATION_ID);
		return new InboundMessage(properties.getMessageId(), properties.getType(), properties.getContentType(), headers,
				body, properties.getCorrelationId(), (conversation instanceof String text) ? text : null,
				envelope.getExchange(), envelope.getRoutingKey());
	}

}
