package dev.waybill.outbox.rabbit;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A message in a consumer's error queue, as an operator sees it.
 *
 * @param messageId the message id (the id the consumer's inbox knows it by)
 * @param messageType the message type, or {@literal null}
 * @param contentType the content type, or {@literal null}
 * @param faultMessage why the consumer gave it up: the exception's message or the reason
 * @param faultExceptionType the exception's class name, or {@literal null} when there was none
 * @param faultAttempts the failed deliveries, or {@literal null}
 * @param originalExchange the exchange it was first published to, or {@literal null}
 * @param originalRoutingKey the routing key it was first published with, or {@literal null}
 * @param sentAt the AMQP timestamp, or {@literal null}
 * @param headers every header as text
 * @param bodyPreview the start of the body (UTF-8 text, or {@code base64:} and the bytes when it is not text)
 * @param bodySize the body's size in bytes
 * @param bodyTruncated whether the preview holds less than the whole body
 * @since 0.1
 */
public record ErrorQueueMessage(@Nullable String messageId, @Nullable String messageType, @Nullable String contentType,
		@Nullable String faultMessage, @Nullable String faultExceptionType, @Nullable Integer faultAttempts,
		@Nullable String originalExchange, @Nullable String originalRoutingKey, @Nullable Instant sentAt,
		Map<String, String> headers, String bodyPreview, int bodySize, boolean bodyTruncated) {

}
