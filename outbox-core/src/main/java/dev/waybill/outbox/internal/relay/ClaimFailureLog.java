package dev.waybill.outbox.internal.relay;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.NestedRuntimeException;

import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.OutageLogger;
import dev.waybill.kernel.SharedOutage;

/**
 * Logs the failures of the relay's workers to claim (most often: the database is unavailable) as
 * one story ({@link OutageLogger}): a warning when they begin, one a minute while they last, an
 * info line when a claim succeeds again, the failures between at debug. Shared by the workers, so
 * an outage is not a warning with a stack trace per worker and poll interval. The first warning
 * carries the stack trace only when the failure is not the database being unreachable, which
 * needs none.
 */
final class ClaimFailureLog implements OutageLogger.Wording<RuntimeException> {

	private static final Log logger = LogFactory.getLog(Relay.class);

	private final String relayId;

	private final Duration retryEvery;

	private final OutageLogger<RuntimeException> outage = new OutageLogger<>(logger, this);

	private volatile String lastReason = "";

	/** Whether an unavailable database is checked off the workers ({@link StoreRecovery}) rather than claimed from. */
	private final boolean watched;

	ClaimFailureLog(String relayId, Duration retryEvery) {
		this(relayId, retryEvery, false);
	}

	ClaimFailureLog(String relayId, Duration retryEvery, boolean watched) {
		this.relayId = relayId;
		this.retryEvery = retryEvery;
		this.watched = watched;
	}

	void failed(RuntimeException failure) {
		this.lastReason = reason(failure);
		this.outage.failed(failure);
	}

	/**
	 * A claim succeeded.
	 * @param startedAt when it began ({@link System#nanoTime()}): a claim another worker began
	 * before the failures did ends no outage
	 */
	void succeeded(long startedAt) {
		this.outage.recovered(startedAt);
	}

	/** How long claims have been failing, or {@literal null} while they succeed. */
	@Nullable Duration failingFor() {
		return this.outage.failingFor();
	}

	/** Why the last claim failed, or {@code ""} before any failure. */
	String lastReason() {
		return this.lastReason;
	}

	@Override
	public String began(RuntimeException failure) {
		boolean unavailable = databaseUnavailable(failure);
		return "Waybill relay " + this.relayId + ": " + (unavailable ? "database unavailable" : "cannot claim") + " ("
				+ reason(failure) + "); "
				+ ((unavailable && this.watched) ? "checking it every " + this.retryEvery + ", claiming again once it answers"
						: "claiming again every " + this.retryEvery)
				+ ", no delivery attempt is counted";
	}

	@Override
	public @Nullable Throwable beganTrace(RuntimeException failure) {
		return databaseUnavailable(failure) ? null : failure;
	}

	@Override
	public String still(RuntimeException failure, SharedOutage.Failure told) {
		return "Waybill relay " + this.relayId + ": "
				+ (databaseUnavailable(failure) ? "database still unavailable" : "still cannot claim") + " after "
				+ told.failingFor() + ", " + told.failures() + " failed tries (" + reason(failure) + ")";
	}

	@Override
	public String again(RuntimeException failure) {
		return "Waybill relay " + this.relayId + ": claim failed again";
	}

	@Override
	public Throwable againTrace(RuntimeException failure) {
		return failure;
	}

	@Override
	public String ended(SharedOutage.Ended ended) {
		return "Waybill relay " + this.relayId + ": claiming again after " + ended.lasted() + " (" + ended.failures()
				+ " failed tries)";
	}

	private static boolean databaseUnavailable(RuntimeException failure) {
		return DatabaseFailures.unavailableOrReadOnly(failure);
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
