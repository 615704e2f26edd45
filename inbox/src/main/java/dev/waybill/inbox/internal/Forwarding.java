package dev.waybill.inbox.internal;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.spi.FaultEvents;
import dev.waybill.inbox.spi.ForwardedHeaders;
import dev.waybill.kernel.MessageChecks;
import dev.waybill.kernel.PostgresText;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * Builds the outbox messages that carry an inbound message on: a redelivery to the consumer's
 * queue, or a fault to its error queue. Both go through the broker's default exchange (named
 * {@code ""}), which routes by queue name, with the inbound body, envelope and headers unchanged
 * (see {@link InboxHeaders} for the one exception).
 */
final class Forwarding {



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

	/**
	 * Tells why a redelivery of {@code message} could never be published, its headers being over
	 * {@code maxHeaderBytes} (sized as {@link MessageChecks#headerBytes} sizes what is published).
	 * @return the fault reason, or {@literal null} when a redelivery fits
	 */
	static @Nullable String redeliveryTooLarge(ConsumerRegistration<?> consumer, InboundMessage message, Instant now,
			long maxHeaderBytes) {
		long size = MessageChecks.headerBytes(redelivery(UUID.randomUUID(), consumer, message, 1, now, now));
		return (size > maxHeaderBytes) ? "headers too large to forward for a redelivery (" + size + " bytes > "
				+ maxHeaderBytes + ", one AMQP frame)" : null;
	}

	/**
	 * Builds the copy of a faulted message for the error queue, fitted to {@code maxHeaderBytes}
	 * (sized as {@link MessageChecks#headerBytes} sizes what is published): when it would not fit,
	 * the stack trace is shortened, then the fault message; when the inbound headers alone leave no
	 * room, they are left out, and {@link InboxHeaders#DROPPED_HEADERS} says how many and how large
	 * they were. The fault reason, attempts and Waybill's own headers stay.
	 */
	static OutboxMessage fault(UUID messageId, ConsumerRegistration<?> consumer, InboundMessage message, DeliveryFault fault,
			int attempts, Instant now, long maxHeaderBytes) {
		Map<String, Object> inbound = forwardedHeaders(consumer, message);
		Throwable exception = fault.exception();
		String trace = (exception != null) ? FaultEvents.stackTrace(exception) : null;
		String text = (exception != null) ? Objects.toString(exception.getMessage(), "")
				: Objects.toString(fault.reason(), "");
		OutboxMessage copy = faultCopy(messageId, consumer, message, fault, attempts, now, inbound, trace, text,
				message.conversationId());
		long size = MessageChecks.headerBytes(copy);
		if (size <= maxHeaderBytes) {
			return copy;
		}
		OutboxMessage shortened = shortened(copy, trace, text, maxHeaderBytes);
		if (shortened != null) {
			return shortened;
		}
		// The sender's headers leave no room: forward Waybill's own only, saying what was left out.
		Map<String, Object> own = ForwardedHeaders.waybillsOwn(inbound);
		long droppedBytes = size - MessageChecks.headerBytes(faultCopy(messageId, consumer, message, fault, attempts,
				now, own, trace, text, message.conversationId()));
		own.put(InboxHeaders.DROPPED_HEADERS, (inbound.size() - own.size()) + " headers (" + droppedBytes
				+ " bytes) left out: with them the copy's headers take " + size + " bytes, over the " + maxHeaderBytes
				+ " bytes one AMQP frame carries");
		copy = faultCopy(messageId, consumer, message, fault, attempts, now, own, trace, text,
				message.conversationId());
		shortened = shortened(copy, trace, text, maxHeaderBytes);
		if (shortened != null) {
			return shortened;
		}
		// Last resort (a hostile conversation id, a tiny frame_max): no conversation id, no texts.
		copy = faultCopy(messageId, consumer, message, fault, attempts, now, own, trace, text, null);
		shortened = shortened(copy, trace, text, maxHeaderBytes);
		return (shortened != null) ? shortened : copy;
	}

	private static OutboxMessage faultCopy(UUID messageId, ConsumerRegistration<?> consumer, InboundMessage message,
			DeliveryFault fault, int attempts, Instant now, Map<String, Object> forwarded, @Nullable String trace,
			String text, @Nullable String conversationId) {
		Map<String, Object> headers = new LinkedHashMap<>(forwarded);
		Throwable exception = fault.exception();
		if (fault.reason() != null) {
			headers.put(InboxHeaders.FAULT_REASON, fault.reason());
		}
		if (exception != null) {
			headers.put(InboxHeaders.FAULT_EXCEPTION_TYPE, exception.getClass().getName());
			headers.put(InboxHeaders.FAULT_STACK_TRACE, cut(Objects.requireNonNull(trace), MAX_STACK_TRACE_LENGTH));
		}
		headers.put(InboxHeaders.FAULT_MESSAGE, cut(text, MAX_FAULT_MESSAGE_LENGTH));
		headers.put(InboxHeaders.FAULT_ATTEMPTS, attempts);
		if (message.messageId() != null && !messageId.toString().equalsIgnoreCase(message.messageId())) {
			headers.put(InboxHeaders.ORIGINAL_MESSAGE_ID, message.messageId());
		}
		return forward(messageId, consumer.errorQueue(), message, headers, now, null, conversationId);
	}

	/**
	 * Shortens the stack trace, then the fault message, of a copy over {@code maxHeaderBytes}.
	 * @return the copy that fits, or {@literal null} when even both shortened to nothing do not
	 */
	private static @Nullable OutboxMessage shortened(OutboxMessage copy, @Nullable String trace, String text,
			long maxHeaderBytes) {
		OutboxMessage current = copy;
		for (String name : List.of(InboxHeaders.FAULT_STACK_TRACE, InboxHeaders.FAULT_MESSAGE)) {
			long excess = MessageChecks.headerBytes(current) - maxHeaderBytes;
			if (excess <= 0) {
				return current;
			}
			Object value = current.headers().get(name);
			if (!(value instanceof String shown)) {
				continue;
			}
			String full = name.equals(InboxHeaders.FAULT_STACK_TRACE) ? Objects.requireNonNull(trace) : text;
			Map<String, Object> headers = new LinkedHashMap<>(current.headers());
			headers.put(name, cutToBytes(full, MessageChecks.utf8Length(shown) - excess));
			current = withHeaders(current, headers);
		}
		return (MessageChecks.headerBytes(current) <= maxHeaderBytes) ? current : null;
	}

	/**
	 * Cuts {@code text} as {@link #cut} does, to at most {@code maxBytes} bytes in UTF-8 with the
	 * note saying how long it was; to an empty string when not even the note fits.
	 */
	static String cutToBytes(String text, long maxBytes) {
		if (MessageChecks.utf8Length(text) <= maxBytes) {
			return text;
		}
		String note = "... (" + text.length() + " characters in all)";
		long room = maxBytes - note.length();
		if (room < 0) {
			return "";
		}
		// every char is at most 3 bytes in UTF-8 (a surrogate pair 4 for two), so this undershoots
		// by little and the loop below walks it up to the limit
		int length = (int) Math.min(text.length(), room / 3);
		if (length > 0 && Character.isHighSurrogate(text.charAt(length - 1))) {
			length--;
		}
		long bytes = MessageChecks.utf8Length(text.substring(0, length));
		while (length < text.length()) {
			int next = Character.isHighSurrogate(text.charAt(length)) && length + 1 < text.length()
					&& Character.isLowSurrogate(text.charAt(length + 1)) ? length + 2 : length + 1;
			long more = MessageChecks.utf8Length(text.substring(length, next));
			if (bytes + more > room) {
				break;
			}
			bytes += more;
			length = next;
		}
		return text.substring(0, length) + note;
	}

	private static OutboxMessage forward(UUID messageId, String queue, InboundMessage message,
			Map<String, Object> headers, Instant now, @Nullable Instant notBefore) {
		return forward(messageId, queue, message, headers, now, notBefore, message.conversationId());
	}

	private static OutboxMessage forward(UUID messageId, String queue, InboundMessage message,
			Map<String, Object> headers, Instant now, @Nullable Instant notBefore, @Nullable String conversationId) {
		// No source host: the inbound headers carry the publisher's on. The properties go into text
		// columns, so U+0000 in them is stored as U+FFFD; the headers are stored as they are.
		return new OutboxMessage(messageId, ForwardedHeaders.DEFAULT_EXCHANGE, queue,
				PostgresText.column(Objects.toString(message.messageType(), "")),
				PostgresText.column(Objects.toString(message.contentType(), "")), headers, message.body(),
				PostgresText.column(message.correlationId()), PostgresText.column(conversationId), null, now,
				notBefore);
	}

	private static OutboxMessage withHeaders(OutboxMessage message, Map<String, Object> headers) {
		return new OutboxMessage(message.messageId(), message.destination(), message.routingKey(),
				message.messageType(), message.contentType(), headers, message.body(), message.correlationId(),
				message.conversationId(), message.sourceHost(), message.sentAt(), message.notBefore(),
				message.expiresAt());
	}

	private static Map<String, Object> forwardedHeaders(ConsumerRegistration<?> consumer, InboundMessage message) {
		return ForwardedHeaders.of(consumer, message.headers(), message.exchange(), message.routingKey());
	}

	/** Cuts {@code text} to about {@code maxLength} characters, never inside a surrogate pair, saying so. */
	static String cut(String text, int maxLength) {
		return (text.length() <= maxLength) ? text
				: PostgresText.prefix(text, maxLength) + "... (" + text.length() + " characters in all)";
	}


}
