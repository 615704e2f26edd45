package dev.waybill.outbox;

import java.util.UUID;
import java.util.function.Consumer;

/**
 * Publishes messages through the transactional outbox. Each call serializes the message at once
 * (so bad input fails inside the business transaction) and buffers it in the current
 * transaction; the buffered messages are written to the outbox in one statement just before the
 * transaction commits, on the transaction's own connection, and relayed to the broker after
 * commit. Nothing is ever sent directly.
 * <p>
 * Every method needs an active, read-write, Spring-managed transaction (an {@link Outbox @Outbox}
 * method, a {@code @Transactional} one or a {@code TransactionTemplate}) and throws
 * {@link IllegalStateException} without one. Bad input throws {@link InvalidMessageException}
 * and buffers nothing, so the transaction can still commit without that message.
 * <p>
 * Implementations are thread-safe; one instance serves every transaction.
 *
 * @since 0.1
 */
public interface OutboxPublisher {

	/**
	 * Publishes an event to the exchange of its message type (see {@link MessageType}).
	 * @param message the message, must not be {@literal null}
	 * @return the message id, a time-ordered UUID
	 */
	default UUID publish(Object message) {
		return publish(message, options -> {
		});
	}

	/**
	 * Publishes an event to the exchange of its message type, with headers, routing key,
	 * correlation id or a not-before time set by {@code options}.
	 * @param message the message, must not be {@literal null}
	 * @param options sets the options of this message, must not be {@literal null}
	 * @return the message id, a time-ordered UUID
	 */
	UUID publish(Object message, Consumer<PublishOptions> options);

	/**
	 * Sends a command to a named destination (an exchange) rather than to the exchange of its type.
	 * @param destination the destination name, must not be blank
	 * @param message the message, must not be {@literal null}
	 * @return the message id, a time-ordered UUID
	 */
	default UUID send(String destination, Object message) {
		return send(destination, message, options -> {
		});
	}

	/**
	 * Sends a command to a named destination, with the options {@code options} sets.
	 * @param destination the destination name, must not be blank
	 * @param message the message, must not be {@literal null}
	 * @param options sets the options of this message, must not be {@literal null}
	 * @return the message id, a time-ordered UUID
	 */
	UUID send(String destination, Object message, Consumer<PublishOptions> options);

}
