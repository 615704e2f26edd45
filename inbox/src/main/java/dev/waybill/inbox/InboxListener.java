package dev.waybill.inbox;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.internal.InboxProcessor;

/**
 * Hears the outcome of every delivery the {@link InboxProcessor} handled, for metrics, progress and
 * logging: how many messages were processed, suppressed as duplicates, scheduled for redelivery or
 * moved to the error queue, and how many copies of given-up messages were dropped. Declare it as a
 * bean and the inbox auto-configuration adds it.
 * <p>
 * Called on the delivering thread after the outcome committed and before the transport acknowledges
 * the delivery; a crash in between skips the call. Not called when the processor throws (nothing
 * was recorded). Implementations must be quick; an exception they throw is logged and ignored.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface InboxListener {

	/** A listener that does nothing. */
	InboxListener NONE = (consumer, message, outcome) -> {
	};

	/**
	 * A delivery's outcome committed.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @param outcome what was committed: {@link InboxOutcome#DUPLICATE} for a message the consumer
	 * had processed already and {@link InboxOutcome#ALREADY_FAULTED} for one it had given up, whose
	 * handler did not run
	 */
	void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome);

	/**
	 * The processor began to work on a delivery; {@link #finished} follows, whatever happens.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @since 0.1
	 */
	default void started(ConsumerRegistration<?> consumer, InboundMessage message) {
	}

	/**
	 * The processor is done with a delivery, after {@link #delivered} or after it threw (then
	 * {@code outcome} is {@literal null}: nothing was recorded).
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @param outcome what was committed, or {@literal null} when the processor threw
	 * @param nanos how long the processor worked on the delivery
	 * @since 0.1
	 */
	default void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
			long nanos) {
	}

	/**
	 * The delivery is poison: it can never be handled (no valid message id, another type, a body
	 * that cannot be read, or the database refused to record it) and went to the error queue at
	 * once, without a retry. Called after that committed, before {@link #delivered} with
	 * {@link InboxOutcome#FAULTED}.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @param reason why it can never be handled
	 * @since 0.1
	 */
	default void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
	}

	/**
	 * The delivery's handler ran in a batch that then rolled back, because a later delivery of the
	 * batch could not be handled in it; its work was undone and the delivery is handled again
	 * (its handler runs a second time). {@link #finished} follows once, after the second run.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @since 0.1
	 */
	default void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
	}

	/**
	 * A keyed delivery is handled without its predecessor: it arrived ahead of it (the broker
	 * refused the predecessor and took this one), and the predecessor did not come within
	 * {@code waybill.inbox.predecessor-wait}. Called before it is handled.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @param previous the message id of its missing predecessor
	 * @since 0.1
	 */
	default void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous) {
	}

	/**
	 * Returns a listener that calls this one, then {@code next}.
	 * @param next the listener to call second
	 * @return the combined listener
	 */
	default InboxListener andThen(InboxListener next) {
		Objects.requireNonNull(next, "next must not be null");
		InboxListener first = this;
		return new InboxListener() {

			@Override
			public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
				first.delivered(consumer, message, outcome);
				next.delivered(consumer, message, outcome);
			}

			@Override
			public void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
				first.poisoned(consumer, message, reason);
				next.poisoned(consumer, message, reason);
			}

			@Override
			public void started(ConsumerRegistration<?> consumer, InboundMessage message) {
				first.started(consumer, message);
				next.started(consumer, message);
			}

			@Override
			public void finished(ConsumerRegistration<?> consumer, InboundMessage message,
					@Nullable InboxOutcome outcome, long nanos) {
				first.finished(consumer, message, outcome, nanos);
				next.finished(consumer, message, outcome, nanos);
			}

			@Override
			public void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
				first.rolledBack(consumer, message);
				next.rolledBack(consumer, message);
			}

			@Override
			public void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous) {
				first.predecessorMissing(consumer, message, previous);
				next.predecessorMissing(consumer, message, previous);
			}

		};
	}

}
