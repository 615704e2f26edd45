package dev.waybill.inbox.spi;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboxOutcome;

/**
 * What {@link DeliveryProcessor#processBatch} made of one delivery, and so what the transport does
 * with it: acknowledge it (an outcome was committed), move it to the error queue itself
 * ({@link UnrecordableDeliveryException}), or return it to the queue (the database is unavailable,
 * nothing was recorded).
 *
 * @param outcome what was committed, or {@literal null} when nothing was
 * @param failure why nothing was committed, or {@literal null}
 * @since 0.1
 */
public record DeliveryResult(@Nullable InboxOutcome outcome, @Nullable RuntimeException failure) {

	public static DeliveryResult committed(InboxOutcome outcome) {
		return new DeliveryResult(outcome, null);
	}

	public static DeliveryResult failed(RuntimeException failure) {
		return new DeliveryResult(null, failure);
	}

	/**
	 * Tells whether the outcome committed: acknowledge the delivery.
	 * @return whether it did
	 */
	public boolean acknowledge() {
		return this.outcome != null;
	}

	/**
	 * Tells whether the database refused to record anything: the transport moves the delivery to the
	 * error queue with {@link #failure()}'s reason, then acknowledges it.
	 * @return whether it did
	 */
	public boolean unrecordable() {
		return this.failure instanceof UnrecordableDeliveryException;
	}

}
