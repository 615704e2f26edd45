package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.NestedRuntimeException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Logs the failures of the relay's workers to claim (most often: the database is unavailable) as
 * one story, as the relay logs a broker outage: a warning when they begin, one a minute while they
 * last, an info line when a claim succeeds again, the failures between at debug. Shared by the
 * workers, so an outage is not a warning with a stack trace per worker and poll interval. The
 * first warning carries the stack trace only when the failure is not the database being
 * unreachable, which needs none.
 */
final class ClaimFailureLog {

	private static final Log logger = LogFactory.getLog(Relay.class);

	private final String relayId;

	private final Duration retryEvery;

	private final AtomicLong failingSince = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	/** How many warning intervals of the outage were told. */
	private final AtomicLong reminders = new AtomicLong();

	private volatile String lastReason = "";

	ClaimFailureLog(String relayId, Duration retryEvery) {
		this.relayId = relayId;
		this.retryEvery = retryEvery;
	}

	void failed(RuntimeException failure) {
		long now = System.nanoTime();
		long failures = this.failures.incrementAndGet();
		boolean unavailable = databaseUnavailable(failure);
		this.lastReason = reason(failure);
		if (this.failingSince.compareAndSet(0, now)) {
			String line = "Waybill relay " + this.relayId + ": " + (unavailable ? "database unavailable" : "cannot claim")
					+ " (" + reason(failure) + "); claiming again every " + this.retryEvery
					+ ", no delivery attempt is counted";
			if (unavailable) {
				logger.warn(line);
			}
			else {
				logger.warn(line, failure);
			}
		}
		else if (remind(now)) {
			logger.warn("Waybill relay " + this.relayId + ": " + (unavailable ? "database still unavailable" : "still cannot claim")
					+ " after " + since(now) + ", " + failures + " failed tries (" + reason(failure) + ")");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Waybill relay " + this.relayId + ": claim failed again", failure);
		}
	}

	/**
	 * Whether another warning interval of the outage has passed untold, reckoned from the outage's
	 * start alone, which the worker that began it set in one step: a worker failing at the same
	 * moment cannot read a half-begun outage as an interval old.
	 */
	private boolean remind(long now) {
		long since = this.failingSince.get();
		long intervals = (since == 0) ? 0 : (now - since) / Relay.OUTAGE_WARNING_INTERVAL.toNanos();
		long told = this.reminders.get();
		return intervals > told && this.reminders.compareAndSet(told, intervals);
	}

	/**
	 * A claim succeeded.
	 * @param startedAt when it began ({@link System#nanoTime()}): a claim another worker began
	 * before the failures did ends no outage
	 */
	void succeeded(long startedAt) {
		long since = this.failingSince.get();
		if (since != 0 && startedAt - since > 0 && this.failingSince.compareAndSet(since, 0)) {
			this.reminders.set(0);
			logger.info("Waybill relay " + this.relayId + ": claiming again after " + since(System.nanoTime(), since) + " ("
					+ this.failures.getAndSet(0) + " failed tries)");
		}
	}

	/** How long claims have been failing, or {@literal null} while they succeed. */
	@Nullable Duration failingFor() {
		long since = this.failingSince.get();
		return (since == 0) ? null : Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
	}

	/** Why the last claim failed, or {@code ""} before any failure. */
	String lastReason() {
		return this.lastReason;
	}

	private String since(long now) {
		return since(now, this.failingSince.get());
	}

	private static String since(long now, long since) {
		return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(now - since)).toString();
	}

	/** Spring's translations of a database that cannot be reached, or a connection lost. */
	private static boolean databaseUnavailable(RuntimeException failure) {
		return failure instanceof DataAccessResourceFailureException
				|| failure instanceof TransientDataAccessResourceException
				|| failure instanceof CannotCreateTransactionException;
	}

	/**
	 * The first cause that is not one of Spring's wrappers (whose message quotes the whole claim
	 * statement), with its root cause when that is another: "An I/O error occurred while sending
	 * to the backend. (java.io.EOFException)".
	 */
	static String reason(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof NestedRuntimeException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		Throwable root = NestedExceptionUtils.getRootCause(cause);
		String reason = text(cause);
		return (root != null && root != cause) ? reason + " (" + text(root) + ")" : reason;
	}

	private static String text(Throwable failure) {
		String message = failure.getMessage();
		return (message != null) ? message : failure.getClass().getName();
	}

}
