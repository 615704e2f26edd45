package dev.waybill.outbox.rabbit;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.OutboxMessage;

/**
 * Maps an {@link OutboxMessage} onto AMQP 0-9-1 properties and finds what AMQP cannot carry.
 */
final class AmqpMessages {

	/** The longest AMQP short string (exchange, routing key, most properties, header names). */
	static final int MAX_SHORT_STRING_BYTES = 255;

	private static final int PERSISTENT = 2;

	private AmqpMessages() {
	}

	/**
	 * Tells why a message can never be published as it is.
	 * @param message the message
	 * @param maxBodySize the largest body the broker accepts, in bytes
	 * @return the reason, or {@literal null} when the message can be published
	 */
	static @Nullable String problem(OutboxMessage message, long maxBodySize) {
		if (message.body().length > maxBodySize) {
			return "body of " + message.body().length + " bytes is over the broker's limit of " + maxBodySize
					+ " bytes (waybill.rabbit.max-body-size)";
		}
		String problem = tooLong("exchange name", message.destination());
		problem = (problem != null) ? problem : tooLong("routing key", message.routingKey());
		problem = (problem != null) ? problem : tooLong("message type", message.messageType());
		problem = (problem != null) ? problem : tooLong("content type", message.contentType());
		problem = (problem != null) ? problem : tooLong("correlation id", message.correlationId());
		for (String name : message.headers().keySet()) {
			problem = (problem != null) ? problem : tooLong("header name", name);
		}
		return problem;
	}

	private static @Nullable String tooLong(String what, @Nullable String value) {
		if (value == null) {
			return null;
		}
		int bytes = value.getBytes(StandardCharsets.UTF_8).length;
		if (bytes <= MAX_SHORT_STRING_BYTES) {
			return null;
		}
		String shown = (value.length() > 40) ? value.substring(0, 40) + "..." : value;
		return what + " '" + shown + "' is " + bytes + " bytes; AMQP allows at most " + MAX_SHORT_STRING_BYTES;
	}

	/**
	 * Returns the AMQP properties of a message: persistent, with its ids, type, content type, send
	 * time and headers.
	 * @param message the message
	 * @return the properties
	 */
	static AMQP.BasicProperties properties(OutboxMessage message) {
		Map<String, Object> headers = new LinkedHashMap<>();
		message.headers().forEach((name, value) -> headers.put(name, headerValue(value)));
		if (message.conversationId() != null) {
			headers.put(RabbitHeaders.CONVERSATION_ID, message.conversationId());
		}
		if (message.sourceHost() != null) {
			headers.put(RabbitHeaders.SOURCE_HOST, message.sourceHost());
		}
		return new AMQP.BasicProperties.Builder().deliveryMode(PERSISTENT)
			.messageId(message.messageId().toString())
			.type(message.messageType())
			.contentType(message.contentType())
			.correlationId(message.correlationId())
			.timestamp(Date.from(message.sentAt()))
			.appId(RabbitHeaders.APP_ID)
			.headers(headers)
			.build();
	}

	/**
	 * Returns a header value the AMQP field table can encode: strings, booleans and the primitive
	 * number types as they are, integers that fit as a long, any other number as its exact text
	 * (an AMQP decimal holds only a 32-bit unscaled value).
	 */
	static Object headerValue(Object value) {
		if (value instanceof String || value instanceof Boolean || value instanceof Integer || value instanceof Long
				|| value instanceof Short || value instanceof Byte || value instanceof Double
				|| value instanceof Float) {
			return value;
		}
		if (value instanceof BigInteger big && big.bitLength() < Long.SIZE) {
			return big.longValue();
		}
		return value.toString();
	}

}
