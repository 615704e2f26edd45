package dev.waybill.schedules;

import dev.waybill.outbox.OutboxPublisher;

/**
 * Publishes the messages of one tick. Called inside the transaction that also moves the
 * schedule to its next tick, so what it publishes commits exactly when the tick counts as fired;
 * it may also write business rows in that transaction. Every message it publishes carries the
 * {@link ScheduleTick#SCHEDULE_HEADER} and {@link ScheduleTick#TICK_HEADER} headers.
 * <p>
 * An exception rolls the tick back; the scheduler then records it as failed on the schedule
 * (the tick is not retried, so a broken builder cannot loop) and goes on with the next tick.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface ScheduledMessages {

	/**
	 * Publishes the tick's messages with {@code publisher}.
	 * @param tick the tick
	 * @param publisher publishes into the tick's transaction
	 */
	void publish(ScheduleTick tick, OutboxPublisher publisher);

}
