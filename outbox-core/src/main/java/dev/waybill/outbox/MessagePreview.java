package dev.waybill.outbox;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One stored message as an operator sees it: the envelope, the headers as text and the start of
 * the body.
 *
 * @param messageId the message id
 * @param destination the exchange, {@code ""} for the default exchange
 * @param routingKey the routing key
 * @param messageType the message type
 * @param contentType the content type
 * @param headers the headers, each value as its text (byte arrays in Base64)
 * @param bodyPreview the start of the body: its UTF-8 text when it is text, else {@code base64:} and
 * the Base64 of those bytes
 * @param bodySize the whole body's size in bytes
 * @param bodyTruncated whether the preview holds less than the whole body
 * @param correlationId the correlation id, or {@literal null}
 * @param createdAt when the message was published
 * @param notBefore its earliest delivery time, or {@literal null}
 * @since 0.1
 */
public record MessagePreview(UUID messageId, String destination, String routingKey, String messageType,
		String contentType, Map<String, String> headers, String bodyPreview, int bodySize, boolean bodyTruncated,
		@Nullable String correlationId, Instant createdAt, @Nullable Instant notBefore) {

	/**
	 * Copies the headers.
	 */
	public MessagePreview {
		headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
	}

}
