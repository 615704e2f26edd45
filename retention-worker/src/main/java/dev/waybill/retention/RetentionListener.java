package dev.waybill.retention;

import java.time.Duration;
import java.time.Instant;

/**
 * Hears what the retention worker does; every method has a no-op default. Called on the
 * worker's thread (or the thread of a run on demand): a slow listener slows the purge.
 *
 * @since 0.1
 */
public interface RetentionListener {

	/** A listener that does nothing. */
	RetentionListener NONE = new RetentionListener() {
	};

	/**
	 * Called after a batch's transaction committed.
	 * @param batch what the batch purged
	 * @param duration how long the batch took, commit included
	 */
	default void batchCommitted(RetentionResult batch, Duration duration) {
	}

	/**
	 * Called after a run that held the retention lock released it.
	 * @param run what the run purged
	 * @param finishedAt when it finished
	 */
	default void runCompleted(RetentionResult run, Instant finishedAt) {
	}

	/**
	 * Returns a listener that calls this one, then {@code next}.
	 * @param next the listener to call second
	 * @return the combined listener
	 */
	default RetentionListener andThen(RetentionListener next) {
		RetentionListener first = this;
		return new RetentionListener() {

			@Override
			public void batchCommitted(RetentionResult batch, Duration duration) {
				first.batchCommitted(batch, duration);
				next.batchCommitted(batch, duration);
			}

			@Override
			public void runCompleted(RetentionResult run, Instant finishedAt) {
				first.runCompleted(run, finishedAt);
				next.runCompleted(run, finishedAt);
			}

		};
	}

}
