package dev.waybill.inbox;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One delivery as the transport received it, before the inbox checks it. The transport copies the
 * broker's properties as they are: a missing or malformed id or type is the inbox's to judge (the
 * message goes to the error queue), not the transport's.
 *
 * @param messageId the message id, a UUID in its canonical form when the message came from Waybill
 * @param messageType the message type name (AMQP {@code type})
 * @param contentType the MIME type of {@code body}
 * @param headers the headers, with the types the transport read them as: {@code String}s (the
 * RabbitMQ transport gives an AMQP string that is not valid UTF-8 as a {@code byte[]}),
 * {@code Boolean}s, numbers ({@code Integer}, {@code Long}, {@code Short}, {@code Byte},
 * {@code Double}, {@code Float}, {@code BigDecimal}), timestamps ({@link java.util.Date}), byte
 * arrays, and {@code List}s and {@code Map}s (arrays and nested tables) of such values. A
 * redelivered or faulted message is forwarded with these values and types unchanged (see
 * {@link dev.waybill.outbox.spi.OutboxMessage#headers()}); a value of another type is forwarded as
 * its text. {@literal null} values are dropped
 * @param body the body
 * @param correlationId the correlation id, or {@literal null}
 * @param conversationId the conversation id, or {@literal null}
 * @param exchange the exchange the message was published to, empty for the default exchange
 * @param routingKey the routing key it was published with
 * @since 0.1
 */
public record InboundMessage(@Nullable String messageId, @Nullable String messageType, @Nullable String contentType,
		Map<String, Object> headers, byte[] body, @Nullable String correlationId, @Nullable String conversationId,
		String exchange, String routingKey) {

	/**
	 * Checks the required components and copies the headers.
	 */
	public InboundMessage {
		Objects.requireNonNull(body, "body must not be null");
		Objects.requireNonNull(exchange, "exchange must not be null");
		Objects.requireNonNull(routingKey, "routingKey must not be null");
		Map<String, Object> copy = new LinkedHashMap<>();
		if (headers != null) {
			headers.forEach((name, value) -> {
				if (name != null && value != null) {
					copy.put(name, value);
				}
			});
		}
		headers = Collections.unmodifiableMap(copy);
	}

	@Override
	public String toString() {
		return "InboundMessage[" + this.messageId + " " + this.messageType + " from '" + this.exchange + "' '"
				+ this.routingKey + "', " + this.body.length + " bytes]";
	}

}
