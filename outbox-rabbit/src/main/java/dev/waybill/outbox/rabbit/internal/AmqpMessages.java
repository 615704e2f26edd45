package dev.waybill.outbox.rabbit.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.rabbit.RabbitHeaders;
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
	 * time, headers and, when it expires, the time it has left as {@code expiration}.
	 * @param message the message
	 * @return the properties
	 */
	static AMQP.BasicProperties properties(OutboxMessage message) {
		Map<String, Object> headers = new LinkedHashMap<>();
		message.headers().forEach((name, value) -> headers.put(name, headerValue(value)));
		if (message.conversationId() != null) {
			// A forwarded message carries the header it arrived with, unchanged; keep that one.
			headers.putIfAbsent(RabbitHeaders.CONVERSATION_ID, message.conversationId());
		}
		if (message.sourceHost() != null) {
			headers.put(RabbitHeaders.SOURCE_HOST, message.sourceHost());
		}
		// The broker drops the message once its time-to-live, what is left of it now, has passed.
		String expiration = (message.expiresAt() != null) ? Long.toString(Math.max(1,
				java.time.Duration.between(java.time.Instant.now(), message.expiresAt()).toMillis())) : null;
		return new AMQP.BasicProperties.Builder().deliveryMode(PERSISTENT)
			.expiration(expiration)
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
	 * Returns a header value the AMQP field table can encode, with the type it was stored with:
	 * strings, booleans, the primitive number types, timestamps ({@link Date}), byte arrays,
	 * decimals that fit an AMQP decimal, nested tables ({@link Map}) and arrays ({@link List}), as
	 * they are; integers that fit as a long; any other value as its exact text (an AMQP decimal
	 * holds only a 32-bit unscaled value).
	 */
	static @Nullable Object headerValue(@Nullable Object value) {
		if (value == null || value instanceof String || value instanceof Boolean || value instanceof Integer
				|| value instanceof Long || value instanceof Short || value instanceof Byte || value instanceof Double
				|| value instanceof Float || value instanceof Date || value instanceof byte[]) {
			return value;
		}
		if (value instanceof BigDecimal decimal && decimal.scale() >= 0 && decimal.scale() <= 255
				&& decimal.unscaledValue().bitLength() < Integer.SIZE) {
			return decimal;
		}
		if (value instanceof BigInteger big && big.bitLength() < Long.SIZE) {
			return big.longValue();
		}
		if (value instanceof Map<?, ?> table) {
			Map<String, @Nullable Object> values = new LinkedHashMap<>();
			table.forEach((name, item) -> values.put(String.valueOf(name), headerValue(item)));
			return values;
		}
		if (value instanceof List<?> array) {
			return array.stream().map(AmqpMessages::headerValue).collect(Collectors.toList());
		}
		if (value instanceof Object[] array) {
			return headerValue(Arrays.asList(array));
		}
		return value.toString();
	}

	/**
	 * Returns a received header value as the inbox keeps it: AMQP long strings as {@link String}s
	 * (as a {@code byte[]} of their bytes when they are not valid UTF-8, so nothing is lost), in
	 * nested tables and arrays too; every other value (numbers, booleans, {@link Date}s, byte
	 * arrays, decimals) as the client read it.
	 */
	static @Nullable Object inboundValue(@Nullable Object value) {
		if (value instanceof LongString text) {
			byte[] bytes = text.getBytes();
			try {
				return StandardCharsets.UTF_8.newDecoder()
					.onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT)
					.decode(ByteBuffer.wrap(bytes))
					.toString();
			}
			catch (CharacterCodingException ex) {
				return bytes;
			}
		}
		if (value instanceof Map<?, ?> table) {
			Map<String, @Nullable Object> values = new LinkedHashMap<>();
			table.forEach((name, item) -> values.put(String.valueOf(name), inboundValue(item)));
			return values;
		}
		if (value instanceof List<?> array) {
			List<@Nullable Object> values = new ArrayList<>(array.size());
			array.forEach((item) -> values.add(inboundValue(item)));
			return values;
		}
		return value;
	}

}
