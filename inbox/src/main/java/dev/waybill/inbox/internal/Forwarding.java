package dev.waybill.inbox.internal;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.outbox.internal.jdbc.PostgresText;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * Builds the outbox messages that carry an inbound message on: a redelivery to the consumer's
 * queue, or a fault to its error queue. Both go through the broker's default exchange (named
 * {@code ""}), which routes by queue name, with the inbound body, envelope and headers unchanged
 * (see {@link InboxHeaders} for the one exception).
 */
final class Forwarding {

	/** The AMQP default exchange: routes a message to the queue named by its routing key. */
	static final String DEFAULT_EXCHANGE = "";

	private static final int STACK_FRAMES = 10;

	// An exception's message has no bound, and a copy whose headers do not fit in one AMQP frame
	// cannot be published: it would stay dead in the outbox instead of reaching the error queue.
	// 4,000 characters, like the inbox's last_error; the trace repeats the message, hence twice that.
	static final int MAX_FAULT_MESSAGE_LENGTH = 4000;

	static final int MAX_STACK_TRACE_LENGTH = 8000;

	private Forwarding() {
	}

	static OutboxMessage redelivery(UUID messageId, ConsumerRegistration<?> consumer, InboundMessage message,
			int attempts, Instant now, Instant notBefore) {
		Map<String, Object> headers = forwardedHeaders(consumer, message);
		headers.put(InboxHeaders.REDELIVERY_COUNT, attempts);
		return forward(messageId, consumer.queue(), message, headers, now, notBefore);
	}

	static OutboxMessage fault(UUID messageId, ConsumerRegistration<?> consumer, InboundMessage message, DeliveryFault fault,
			int attempts, Instant now) {
		Map<String, Object> headers = forwardedHeaders(consumer, message);
		Throwable exception = fault.exception();
		if (fault.reason() != null) {
			headers.put(InboxHeaders.FAULT_REASON, fault.reason());
		}
		if (exception != null) {
			headers.put(InboxHeaders.FAULT_EXCEPTION_TYPE, exception.getClass().getName());
			headers.put(InboxHeaders.FAULT_STACK_TRACE, cut(stackTrace(exception), MAX_STACK_TRACE_LENGTH));
		}
		headers.put(InboxHeaders.FAULT_MESSAGE, cut((exception != null) ? Objects.toString(exception.getMessage(), "")
				: Objects.toString(fault.reason(), ""), MAX_FAULT_MESSAGE_LENGTH));
		headers.put(InboxHeaders.FAULT_ATTEMPTS, attempts);
		if (message.messageId() != null && !messageId.toString().equalsIgnoreCase(message.messageId())) {
			headers.put(InboxHeaders.ORIGINAL_MESSAGE_ID, message.messageId());
		}
		return forward(messageId, consumer.errorQueue(), message, headers, now, null);
	}

	private static OutboxMessage forward(UUID messageId, String queue, InboundMessage message,
			Map<String, Object> headers, Instant now, @Nullable Instant notBefore) {
		// No source host: the inbound headers carry the publisher's on. The properties go into text
		// columns, so U+0000 in them is stored as U+FFFD; the headers are stored as they are.
		return new OutboxMessage(messageId, DEFAULT_EXCHANGE, queue,
				PostgresText.column(Objects.toString(message.messageType(), "")),
				PostgresText.column(Objects.toString(message.contentType(), "")), headers, message.body(),
				PostgresText.column(message.correlationId()), PostgresText.column(message.conversationId()), null, now,
				notBefore);
	}

	private static Map<String, Object> forwardedHeaders(ConsumerRegistration<?> consumer, InboundMessage message) {
		return ForwardedHeaders.of(consumer, message.headers(), message.exchange(), message.routingKey());
	}

	/** Cuts {@code text} to about {@code maxLength} characters, never inside a surrogate pair, saying so. */
	static String cut(String text, int maxLength) {
		return (text.length() <= maxLength) ? text
				: PostgresText.prefix(text, maxLength) + "... (" + text.length() + " characters in all)";
	}

	static String stackTrace(Throwable exception) {
		StringBuilder trace = new StringBuilder(exception.toString());
		StackTraceElement[] frames = exception.getStackTrace();
		int shown = Math.min(frames.length, STACK_FRAMES);
		for (int i = 0; i < shown; i++) {
			trace.append("\n\tat ").append(frames[i]);
		}
		if (frames.length > shown) {
			trace.append("\n\t... ").append(frames.length - shown).append(" more");
		}
		Throwable root = NestedExceptionUtils.getRootCause(exception);
		if (root != null) {
			trace.append("\nCaused by: ").append(root);
		}
		return trace.toString();
	}

}
