package dev.waybill.outbox;

import java.time.Instant;
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

	/**
	 * Schedules an event: it is published to the exchange of its message type no earlier than
	 * {@code at}, in a scope of its own (see {@link PublishOptions#notBefore(Instant)}), so it does
	 * not hold back the other messages of this transaction. Like {@code publish}, it is written only
	 * if the transaction commits.
	 * @param message the message, must not be {@literal null}
	 * @param at the earliest delivery time, must not be {@literal null}
	 * @return the token to {@link #cancel(ScheduledMessage) cancel} the send with
	 * @since 0.1
	 */
	default ScheduledMessage schedule(Object message, Instant at) {
		return schedule(message, at, (options) -> {
		});
	}

	/**
	 * Schedules an event, with the options {@code options} sets (a not-before time set there is
	 * replaced by {@code at}).
	 * @param message the message, must not be {@literal null}
	 * @param at the earliest delivery time, must not be {@literal null}
	 * @param options sets the options of this message, must not be {@literal null}
	 * @return the token to {@link #cancel(ScheduledMessage) cancel} the send with
	 * @throws UnsupportedOperationException when this publisher cannot schedule (the default)
	 * @since 0.1
	 */
	default ScheduledMessage schedule(Object message, Instant at, Consumer<PublishOptions> options) {
		throw new UnsupportedOperationException(getClass().getName() + " does not schedule messages");
	}

	/**
	 * Schedules a command to a named destination, as {@link #schedule(Object, Instant, Consumer)}
	 * does for an event.
	 * @param destination the destination name, must not be blank
	 * @param message the message, must not be {@literal null}
	 * @param at the earliest delivery time, must not be {@literal null}
	 * @param options sets the options of this message, must not be {@literal null}
	 * @return the token to {@link #cancel(ScheduledMessage) cancel} the send with
	 * @throws UnsupportedOperationException when this publisher cannot schedule (the default)
	 * @since 0.1
	 */
	default ScheduledMessage scheduleSend(String destination, Object message, Instant at,
			Consumer<PublishOptions> options) {
		throw new UnsupportedOperationException(getClass().getName() + " does not schedule messages");
	}

	/**
	 * Cancels a scheduled send, in the current transaction like a publish: the cancellation takes
	 * effect when the transaction commits, and a rollback undoes it. Cancelling a message scheduled
	 * earlier in the same transaction removes it before anything is written.
	 * @param scheduled the token {@code schedule} returned
	 * @return {@literal true} when the send was cancelled; {@literal false} when it can no longer
	 * be: the message was published already, is being published right now (a relay holds it), was
	 * cancelled or expired already, was never scheduled or is not committed yet, or was purged
	 * @since 0.1
	 */
	default boolean cancel(ScheduledMessage scheduled) {
		return cancel(scheduled.scheduleId());
	}

	/**
	 * Cancels a scheduled send by its {@link ScheduledMessage#scheduleId() schedule id}; see
	 * {@link #cancel(ScheduledMessage)}.
	 * @param scheduleId the schedule id
	 * @return whether the send was cancelled
	 * @throws UnsupportedOperationException when this publisher cannot cancel (the default)
	 * @since 0.1
	 */
	default boolean cancel(UUID scheduleId) {
		throw new UnsupportedOperationException(getClass().getName() + " does not cancel scheduled messages");
	}

}
