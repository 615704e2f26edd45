package dev.waybill.kernel;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;

/**
 * Tells a background worker's failing passes (the retention worker's runs, the replay worker's
 * batches) as one story, as the relay tells a database outage ({@link OutageLogger}): a warning when
 * they begin to fail, with the stack trace only when the database is not simply unavailable; one a
 * minute while they fail; an info line when a pass succeeds again; the failures between at debug.
 *
 * @since 0.1
 */
public final class OutageLog {

	private final OutageLogger<Pass> outage;

	/**
	 * Creates the log.
	 * @param logger where the lines go
	 * @param failed what failed, e.g. {@code "Retention run failed"}
	 * @param stillFails the same, ongoing, e.g. {@code "Retention runs still fail"}
	 * @param again the recovery, e.g. {@code "Retention runs again after %s of failed runs"} ({@code %s}:
	 * how long the passes failed)
	 */
	public OutageLog(Log logger, String failed, String stillFails, String again) {
		this.outage = new OutageLogger<>(logger, new PassWording(failed, stillFails, again));
	}

	/**
	 * A pass failed.
	 * @param failure why
	 * @param retryEvery how soon the worker tries again
	 */
	public void failed(RuntimeException failure, Duration retryEvery) {
		this.outage.failed(new Pass(failure, retryEvery));
	}

	/** A pass succeeded: ends the story, if one was told. */
	public void succeeded() {
		this.outage.recovered(this.outage.now());
	}

	/** A failed pass, and how soon the worker tries again. */
	private record Pass(RuntimeException failure, Duration retryEvery) {

		boolean databaseUnavailable() {
			return DatabaseFailures.unavailableOrReadOnly(this.failure);
		}

		String reason() {
			return NestedExceptionUtils.getMostSpecificCause(this.failure).toString();
		}

	}

	private record PassWording(String failed, String stillFails, String again) implements OutageLogger.Wording<Pass> {

		@Override
		public String began(Pass pass) {
			return pass.databaseUnavailable()
					? this.failed + ": database unavailable (" + pass.reason() + "); retrying every " + pass.retryEvery()
					: this.failed + "; retrying every " + pass.retryEvery();
		}

		@Override
		public @Nullable Throwable beganTrace(Pass pass) {
			return pass.databaseUnavailable() ? null : pass.failure();
		}

		@Override
		public String still(Pass pass, SharedOutage.Failure told) {
			return this.stillFails + " after " + told.failingFor() + " (" + pass.reason() + ")";
		}

		@Override
		public String again(Pass pass) {
			return this.failed + " again";
		}

		@Override
		public Throwable againTrace(Pass pass) {
			return pass.failure();
		}

		@Override
		public String ended(SharedOutage.Ended ended) {
			return this.again.formatted(ended.lasted());
		}

	}

}
