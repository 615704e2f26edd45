package dev.waybill.outbox;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link OutboxPublisher} when a message cannot go into the outbox: a {@literal null}
 * message, a body the serializer cannot write, a body over
 * {@code waybill.outbox.max-message-bytes}, a header value of an unsupported type or a NaN or
 * infinite number, a NUL character (U+0000) or an unpaired surrogate (not valid Unicode) in any
 * string of the envelope, an AMQP short string (header name, routing key, destination, correlation
 * id, content type, message type) over 255 bytes of UTF-8, headers too large for one frame of the
 * broker, or a not-before time or time-to-live that ends outside 0001-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999999Z. The message names the message type and the field at fault.
 * Nothing is buffered for the message; the exception propagates out of the business method and
 * rolls its transaction back unless the caller catches it.
 *
 * @since 0.1
 */
public class InvalidMessageException extends IllegalArgumentException {

	private final @Nullable String messageType;

	/**
	 * Creates an exception for a message of the given type.
	 * @param messageType the message type, or {@literal null} when it is unknown
	 * @param reason what is wrong with the message and how to fix it
	 * @param cause the underlying failure, or {@literal null}
	 */
	public InvalidMessageException(@Nullable String messageType, String reason, @Nullable Throwable cause) {
		super(messageType != null ? "Cannot publish message of type '" + messageType + "': " + reason
				: "Cannot publish message: " + reason, cause);
		this.messageType = messageType;
	}

	/**
	 * Returns the type of the rejected message.
	 * @return the message type, or {@literal null} when it is unknown (a {@literal null} message)
	 */
	public @Nullable String getMessageType() {
		return this.messageType;
	}

}
