package dev.waybill.outbox.rabbit.internal;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.kernel.BodyPreviews;
import dev.waybill.kernel.PostgresText;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.rabbit.ErrorQueueMessage;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * What an error-queue message becomes: an operator's view of it, or the outbox message that
 * redrives it to its consumer's queue.
 *
 * @since 0.1
 */
final class ErrorQueueViews {

	/** Headers the inbox adds to a faulted message; a redriven message goes without them. */
	private static final Set<String> FAULT_HEADERS = Set.of(InboxHeaders.FAULT_REASON, InboxHeaders.FAULT_EXCEPTION_TYPE,
			InboxHeaders.FAULT_MESSAGE, InboxHeaders.FAULT_STACK_TRACE, InboxHeaders.FAULT_ATTEMPTS,
			InboxHeaders.REDELIVERY_COUNT);

	private ErrorQueueViews() {
	}

	static OutboxMessage redriven(String queue, GetResponse response, Instant now) {
		InboundMessage inbound = RabbitReceiveEndpoint.inbound(response.getEnvelope(), response.getProps(),
				response.getBody());
		Map<String, Object> headers = new LinkedHashMap<>(inbound.headers());
		FAULT_HEADERS.forEach(headers::remove);
		UUID id = uuid(inbound.messageId());
		// Through the default exchange straight to the consumer's queue: other consumers bound to the
		// original exchange handled the message already.
		return new OutboxMessage(id, "", queue, PostgresText.column(Objects.toString(inbound.messageType(), "")),
				PostgresText.column(Objects.toString(inbound.contentType(), "")), headers, inbound.body(),
				PostgresText.column(inbound.correlationId()), PostgresText.column(inbound.conversationId()), null,
				now, null);
	}

	private static UUID uuid(@Nullable String id) {
		if (id != null) {
			try {
				UUID parsed = UUID.fromString(id);
				if (parsed.toString().equalsIgnoreCase(id)) {
					return parsed;
				}
			}
			catch (IllegalArgumentException ex) {
				// not a UUID: the message gets a new id (the outbox keys messages by UUID)
			}
		}
		return TimeOrderedUuids.next();
	}

	static ErrorQueueMessage view(GetResponse response, int previewBytes) {
		AMQP.BasicProperties props = response.getProps();
		byte[] body = response.getBody();
		boolean truncated = body.length > previewBytes;
		Map<String, Object> headers = new LinkedHashMap<>();
		if (props.getHeaders() != null) {
			props.getHeaders().forEach((name, value) -> headers.put(name, AmqpMessages.inboundValue(value)));
		}
		Object attempts = headers.get(InboxHeaders.FAULT_ATTEMPTS);
		return new ErrorQueueMessage(props.getMessageId(), props.getType(), props.getContentType(),
				text(headers.get(InboxHeaders.FAULT_MESSAGE)), text(headers.get(InboxHeaders.FAULT_EXCEPTION_TYPE)),
				(attempts instanceof Number number) ? number.intValue() : null,
				text(headers.get(InboxHeaders.ORIGINAL_EXCHANGE)), text(headers.get(InboxHeaders.ORIGINAL_ROUTING_KEY)),
				(props.getTimestamp() != null) ? props.getTimestamp().toInstant() : null, BodyPreviews.headers(headers),
				BodyPreviews.text(truncated ? Arrays.copyOf(body, previewBytes) : body, truncated), body.length, truncated);
	}

	private static @Nullable String text(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		String text = BodyPreviews.headers(Map.of("v", value)).get("v");
		return text;
	}

	static @Nullable Object header(GetResponse response, String name) {
		Map<String, Object> headers = response.getProps().getHeaders();
		return (headers != null) ? AmqpMessages.inboundValue(headers.get(name)) : null;
	}

}
