package dev.waybill.outbox;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * The token of a message scheduled with {@link OutboxPublisher#schedule(Object, Instant)}: pass it,
 * or its {@link #scheduleId()} (which an application may store, e.g. on the business row the
 * message is about), to {@link OutboxPublisher#cancel(UUID)} to cancel the send.
 *
 * @param scheduleId the id of the scheduled send: the id of the outbox scope (the
 * {@code outbox_state} row) the message is written in alone
 * @param messageId the id of the message, as consumers will see it
 * @param notBefore when it is due
 * @since 0.1
 */
public record ScheduledMessage(UUID scheduleId, UUID messageId, Instant notBefore) {

	/**
	 * Checks the components.
	 */
	public ScheduledMessage {
		Objects.requireNonNull(scheduleId, "scheduleId must not be null");
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(notBefore, "notBefore must not be null");
	}

}
