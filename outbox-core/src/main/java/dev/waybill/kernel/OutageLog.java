package dev.waybill.kernel;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.springframework.core.NestedExceptionUtils;

import dev.waybill.kernel.DatabaseFailures.ConnectionState;

/**
 * Tells a background worker's failing passes (the retention worker's runs, the replay worker's
 * batches) as one story, as the relay tells a database outage: a warning when they begin to fail,
 * with the stack trace only when the database is not simply unavailable; one a minute while they
 * fail; an info line when a pass succeeds again; the failures between at debug. For one thread.
 *
 * @since 0.1
 */
public final class OutageLog {

	/** How often passes that keep failing are told again. */
	private static final Duration REMINDER_INTERVAL = Duration.ofMinutes(1);

	private final Log logger;

	private final String failed;

	private final String stillFails;

	private final String again;

	private long failingSince;

	private long remindedAt;

	/**
	 * Creates the log.
	 * @param logger where the lines go
	 * @param failed what failed, e.g. {@code "Retention run failed"}
	 * @param stillFails the same, ongoing, e.g. {@code "Retention runs still fail"}
	 * @param again the recovery, e.g. {@code "Retention runs again after %s of failed runs"} ({@code %s}:
	 * how long the passes failed)
	 */
	public OutageLog(Log logger, String failed, String stillFails, String again) {
		this.logger = Objects.requireNonNull(logger, "logger must not be null");
		this.failed = failed;
		this.stillFails = stillFails;
		this.again = again;
	}

	/**
	 * A pass failed.
	 * @param failure why
	 * @param retryEvery how soon the worker tries again
	 */
	public void failed(RuntimeException failure, Duration retryEvery) {
		long now = System.nanoTime();
		String reason = NestedExceptionUtils.getMostSpecificCause(failure).toString();
		if (this.failingSince == 0) {
			this.failingSince = now;
			this.remindedAt = now;
			if (DatabaseFailures.unavailable(failure, ConnectionState.UNKNOWN)) {
				this.logger.warn(this.failed + ": database unavailable (" + reason + "); retrying every " + retryEvery);
			}
			else {
				this.logger.warn(this.failed + "; retrying every " + retryEvery, failure);
			}
		}
		else if (now - this.remindedAt >= REMINDER_INTERVAL.toNanos()) {
			this.remindedAt = now;
			this.logger.warn(this.stillFails + " after " + failingFor(now) + " (" + reason + ")");
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(this.failed + " again", failure);
		}
	}

	/** A pass succeeded: ends the story, if one was told. */
	public void succeeded() {
		if (this.failingSince != 0) {
			this.logger.info(this.again.formatted(failingFor(System.nanoTime())));
			this.failingSince = 0;
		}
	}

	private Duration failingFor(long now) {
		return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(now - this.failingSince));
	}

}
