package dev.waybill.inbox;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The event a consumer publishes when it gives a message up (its handler failed every attempt and
 * the message went to the error queue), when {@code waybill.inbox.faults.publish} is on. Another
 * service consumes it with an ordinary handler, {@code MessageHandler<Fault<OrderPlaced>>}: its
 * queue is bound to the fault exchange of {@code OrderPlaced}.
 * <p>
 * Its message type, and so the exchange it is published to, is the original message type with
 * the prefix {@value #TYPE_PREFIX}: {@code fault:com.example.OrderPlaced}, or
 * {@code fault:order-placed} for a message annotated {@code @MessageType("order-placed")} (see
 * {@link #typeName(String)}). Only handler failures produce a fault event: a poison message (no
 * valid id, a type no handler takes, a body that cannot be read) has no typed message to carry and
 * goes to the error queue alone.
 *
 * @param <T> the type of the message that failed
 * @param message the message that failed, as the consumer read it
 * @param messageId the id of the message that failed
 * @param messageType the message type name of the message that failed
 * @param correlationId its correlation id, or {@literal null}
 * @param conversationId its conversation id, or {@literal null}
 * @param consumer the consumer (queue) that gave it up
 * @param host the host the consumer ran on
 * @param faultedAt when it was given up
 * @param attempts the failed deliveries, the last one included
 * @param exceptionType the class name of the last exception
 * @param exceptionMessage the last exception's message, empty when it had none
 * @param stackTrace the last exception's first stack frames and its root cause
 * @since 0.1
 */
public record Fault<T>(T message, UUID messageId, String messageType, @Nullable String correlationId,
		@Nullable String conversationId, String consumer, String host, Instant faultedAt, int attempts,
		String exceptionType, String exceptionMessage, String stackTrace) {

	/** The prefix of a fault event's message type. */
	public static final String TYPE_PREFIX = "fault:";

	/**
	 * Checks the required components.
	 */
	public Fault {
		Objects.requireNonNull(message, "message must not be null");
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(messageType, "messageType must not be null");
	}

	/**
	 * Returns the message type name, also the exchange name, of the faults of a message type.
	 * @param messageType the message type name of the failing messages
	 * @return {@code fault:} followed by {@code messageType}
	 */
	public static String typeName(String messageType) {
		return TYPE_PREFIX + messageType;
	}

}
