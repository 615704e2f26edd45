package dev.waybill.kernel;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * Refuses, at publish, what the database or the broker would refuse later, or would change: a NUL
 * character (PostgreSQL cannot store U+0000 in text or jsonb), an unpaired surrogate (not Unicode:
 * the PostgreSQL driver writes it as '?', so a destination {@code "orders\uD800"} would become
 * {@code "orders?"}), an AMQP short string over 255 bytes, a NaN or infinite header number (JSON
 * cannot carry it), headers that would not fit in one AMQP frame, and a not-before time or an
 * expiry outside the years 1 to 9999 (the outbox writes them as ISO-8601 text, which PostgreSQL
 * reads only with four-digit years).
 * Public for {@link #headerBytes}: the inbox sizes the copies it forwards (redeliveries, faults)
 * with it, so that they fit the same frame budget as what is published.
 */
public final class MessageChecks {

	/** The longest AMQP short string: exchange names, routing keys, most properties, header names. */
	static final int MAX_SHORT_STRING_BYTES = 255;

	/**
	 * The content header's fixed part: class id (2), weight (2), body size (8), property flags (2).
	 */
	static final int FIXED_HEADER_BYTES = 14;

	/** Room for a name the transport chooses (app id, its own header names), as a short string. */
	static final int TRANSPORT_NAME_BYTES = 32;

	/** The earliest not-before time or expiry the outbox stores: 0001-01-01T00:00:00Z. */
	static final Instant MIN_TIME = Instant.parse("0001-01-01T00:00:00Z");

	/** The latest not-before time or expiry the outbox stores: 9999-12-31T23:59:59.999999Z. */
	static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999999Z");

	private static final String TIME_RANGE = "the outbox stores times from " + MIN_TIME + " to " + MAX_TIME;

	private MessageChecks() {
	}

	/**
	 * Checks a not-before time before it is used.
	 * @param type the message type, for the error
	 * @param notBefore the not-before time, or {@literal null}
	 * @throws InvalidMessageException when the time is outside what the outbox stores
	 */
	public static void notBefore(String type, @Nullable Instant notBefore) {
		if (notBefore != null && (notBefore.isBefore(MIN_TIME) || notBefore.isAfter(MAX_TIME))) {
			throw new InvalidMessageException(shown(type), "the not-before time (notBefore, or the time given to"
					+ " schedule) is " + notBefore + "; " + TIME_RANGE, null);
		}
	}

	/**
	 * Computes a message's expiry: its time-to-live from its not-before time, else from its sent
	 * time.
	 * @param type the message type, for the error
	 * @param due when the time-to-live starts counting
	 * @param timeToLive the time-to-live, or {@literal null}
	 * @return the expiry, or {@literal null} without a time-to-live
	 * @throws InvalidMessageException when the expiry is outside what the outbox stores
	 */
	public static @Nullable Instant expiry(String type, Instant due, @Nullable Duration timeToLive) {
		if (timeToLive == null) {
			return null;
		}
		Instant expiresAt;
		try {
			expiresAt = due.plus(timeToLive);
		}
		catch (ArithmeticException | DateTimeException ex) {
			expiresAt = null;
		}
		if (expiresAt == null || expiresAt.isBefore(MIN_TIME) || expiresAt.isAfter(MAX_TIME)) {
			throw new InvalidMessageException(shown(type), "the timeToLive " + timeToLive + " from " + due
					+ " ends " + ((expiresAt != null) ? "at " + expiresAt : "beyond any representable time") + "; "
					+ TIME_RANGE + ", so the time-to-live must end by then (use none for a message that never"
					+ " expires)", null);
		}
		return expiresAt;
	}

	/**
	 * Checks a message built by the publisher.
	 * @param message the message
	 * @param maxHeaderBytes the largest encoded header the transport accepts
	 * @throws InvalidMessageException naming the message type and the field at fault
	 */
	public static void check(OutboxMessage message, long maxHeaderBytes) {
		String type = message.messageType();
		notBefore(type, message.notBefore());
		shortString(type, "the message type", type);
		shortString(type, "the destination", message.destination());
		shortString(type, "the routing key", message.routingKey());
		shortString(type, "the content type", message.contentType());
		shortString(type, "the correlation id", message.correlationId());
		noNul(type, "the conversation id", message.conversationId());
		message.headers().forEach((name, value) -> {
			shortString(type, "the header name '" + shown(name) + "'", name);
			if (value instanceof String text) {
				noNul(type, dev.waybill.outbox.PublishOptions.ORDERING_KEY_HEADER.equals(name)
						? "the ordering key (header '" + name + "')" : "the value of header '" + shown(name) + "'", text);
			}
			else if ((value instanceof Double number && !Double.isFinite(number))
					|| (value instanceof Float single && !Float.isFinite(single))) {
				throw new InvalidMessageException(shown(type), "the value of header '" + shown(name) + "' is " + value
						+ "; header numbers must be finite (JSON and the outbox table cannot store NaN or infinity)",
						null);
			}
		});
		long size = headerBytes(message);
		if (size > maxHeaderBytes) {
			throw new InvalidMessageException(shown(type), "its headers and properties take about " + size
					+ " bytes encoded, over the " + maxHeaderBytes + " bytes one AMQP frame carries (the broker's"
					+ " frame_max less 8; see waybill.rabbit.frame-max); shorten the header values or move the data"
					+ " into the body", null);
		}
	}

	/**
	 * Estimates the AMQP 0-9-1 content header of a message, in bytes, from above: strings as their
	 * UTF-8 length plus their length prefix, each header entry with its name and type tag, and room
	 * for what the transport adds (message id, timestamp, delivery mode, app id, the conversation
	 * id and source host headers) and, on a keyed message, the relay's
	 * {@value dev.waybill.outbox.PublishOptions#ORDERING_PREVIOUS_HEADER} header.
	 * @param message the message
	 * @return the encoded size of the content header frame's payload
	 */
	public static long headerBytes(OutboxMessage message) {
		long size = FIXED_HEADER_BYTES;
		size += shortStringBytes(message.contentType());
		size += 4; // the headers table's length
		for (Map.Entry<String, Object> header : message.headers().entrySet()) {
			size += shortStringBytes(header.getKey()) + 1 + valueBytes(header.getValue());
		}
		if (message.orderingKey() != null
				&& !message.headers().containsKey(dev.waybill.outbox.PublishOptions.ORDERING_PREVIOUS_HEADER)) {
			// the relay links a keyed message published in a run to its predecessor's message id
			size += shortStringBytes(dev.waybill.outbox.PublishOptions.ORDERING_PREVIOUS_HEADER) + 1
					+ longStringBytes(message.messageId().toString());
		}
		if (message.conversationId() != null) {
			size += (1 + TRANSPORT_NAME_BYTES) + 1 + longStringBytes(message.conversationId());
		}
		if (message.sourceHost() != null) {
			size += (1 + TRANSPORT_NAME_BYTES) + 1 + longStringBytes(message.sourceHost());
		}
		size += 1; // delivery mode
		if (message.correlationId() != null) {
			size += shortStringBytes(message.correlationId());
		}
		size += shortStringBytes(message.messageId().toString());
		size += 8; // timestamp
		size += shortStringBytes(message.messageType());
		size += 1 + TRANSPORT_NAME_BYTES; // app id
		return size;
	}

	private static long valueBytes(@Nullable Object value) {
		if (value == null) {
			return 0;
		}
		if (value instanceof Boolean || value instanceof Byte) {
			return 1;
		}
		if (value instanceof Short) {
			return 2;
		}
		if (value instanceof Integer || value instanceof Float) {
			return 4;
		}
		if (value instanceof Long || value instanceof Double) {
			return 8;
		}
		if (value instanceof BigInteger || value instanceof BigDecimal) {
			// a long or a decimal when it fits, else its text: count the larger
			return Math.max(8, longStringBytes(value.toString()));
		}
		// What an inbound message forwarded by the inbox may carry, as the AMQP client reads it
		if (value instanceof Date) {
			return 8;
		}
		if (value instanceof byte[] bytes) {
			return 4L + bytes.length;
		}
		if (value instanceof Map<?, ?> table) {
			long size = 4; // the table's length
			for (Map.Entry<?, ?> entry : table.entrySet()) {
				size += shortStringBytes(String.valueOf(entry.getKey())) + 1 + valueBytes(entry.getValue());
			}
			return size;
		}
		if (value instanceof List<?> array) {
			long size = 4; // the array's length
			for (Object item : array) {
				size += 1 + valueBytes(item);
			}
			return size;
		}
		return longStringBytes(String.valueOf(value));
	}

	private static long shortStringBytes(String value) {
		return 1 + utf8Length(value);
	}

	private static long longStringBytes(String value) {
		return 4 + utf8Length(value);
	}

	private static void shortString(String type, String field, @Nullable String value) {
		noNul(type, field, value);
		if (value != null) {
			int bytes = utf8Length(value);
			if (bytes > MAX_SHORT_STRING_BYTES) {
				throw new InvalidMessageException(shown(type), field + " is " + bytes
						+ " bytes in UTF-8; AMQP allows at most " + MAX_SHORT_STRING_BYTES + " bytes", null);
			}
		}
	}

	/**
	 * Refuses a NUL character, which PostgreSQL cannot store, and an unpaired surrogate, which is
	 * not Unicode: the PostgreSQL driver would write it as '?'.
	 */
	private static void noNul(String type, String field, @Nullable String value) {
		int at = (value != null) ? value.indexOf('\0') : -1;
		if (at >= 0) {
			throw new InvalidMessageException(shown(type), field + " contains a NUL character (U+0000) at index " + at
					+ "; PostgreSQL cannot store it in the outbox table", null);
		}
		at = (value != null) ? unpairedSurrogate(value) : -1;
		if (at >= 0) {
			throw new InvalidMessageException(shown(type), field + " contains an unpaired surrogate ("
					+ escape(value.charAt(at)) + ") at index " + at + "; it is not valid Unicode, and PostgreSQL would"
					+ " store it as '?'", null);
		}
	}

	/**
	 * Finds the first surrogate that is not part of a pair.
	 * @param value the text
	 * @return its index, or -1 when the text is well-formed UTF-16
	 */
	static int unpairedSurrogate(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Shows a name in an error message: NUL and unpaired surrogates escaped, at most 100
	 * characters.
	 */
	public static String shown(String value) {
		String escaped = value.replace("\0", "\\u0000");
		if (unpairedSurrogate(escaped) >= 0) {
			StringBuilder text = new StringBuilder(escaped.length() + 10);
			for (int i = 0; i < escaped.length(); i++) {
				char c = escaped.charAt(i);
				if (Character.isHighSurrogate(c) && i + 1 < escaped.length()
						&& Character.isLowSurrogate(escaped.charAt(i + 1))) {
					text.append(c).append(escaped.charAt(++i));
				}
				else if (Character.isSurrogate(c)) {
					text.append(String.format("\\u%04X", (int) c));
				}
				else {
					text.append(c);
				}
			}
			escaped = text.toString();
		}
		return (escaped.length() > 100) ? escaped.substring(0, 100) + "..." : escaped;
	}

	private static String escape(char c) {
		return String.format("U+%04X", (int) c);
	}

	/**
	 * Returns the length of {@code value} in UTF-8, an unpaired surrogate counted as the three bytes
	 * of its replacement.
	 * @param value the text
	 * @return its length in bytes
	 */
	public static int utf8Length(String value) {
		int bytes = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < 0x80) {
				bytes++;
			}
			else if (c < 0x800) {
				bytes += 2;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < value.length()
					&& Character.isLowSurrogate(value.charAt(i + 1))) {
				bytes += 4;
				i++;
			}
			else {
				bytes += 3;
			}
		}
		return bytes;
	}

}
