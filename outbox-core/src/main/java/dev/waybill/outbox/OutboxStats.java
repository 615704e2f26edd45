package dev.waybill.outbox;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of the outbox backlog.
 *
 * @param pendingScopes scopes not yet published (waiting, leased or retrying)
 * @param pendingMessages the messages of those scopes
 * @param dueScopes pending scopes that may be claimed now
 * @param deadScopes scopes that exhausted their attempts and wait for a redrive
 * @param oldestPending when the oldest pending scope was written, or {@literal null} when none is
 * @param nextDueIn how long until the next pending scope is due (zero or negative when one is
 * due now), measured on the database clock; {@literal null} when none is pending
 * @since 0.1
 */
public record OutboxStats(long pendingScopes, long pendingMessages, long dueScopes, long deadScopes,
		@Nullable Instant oldestPending, @Nullable Duration nextDueIn) {

	/** No backlog at all. */
	public static final OutboxStats EMPTY = new OutboxStats(0, 0, 0, 0, null, null);

	/**
	 * Returns how far the relay is behind: the age of the oldest pending scope.
	 * @param now the current time
	 * @return the lag, zero when nothing is pending
	 */
	public Duration lag(Instant now) {
		if (this.oldestPending == null || now.isBefore(this.oldestPending)) {
			return Duration.ZERO;
		}
		return Duration.between(this.oldestPending, now);
	}

	/**
	 * Returns how long the oldest due scope has been due: since its not-before time or retry
	 * backoff passed, as of when these figures were read.
	 * @return the time, zero when no scope is due
	 * @since 0.1
	 */
	public Duration oldestDueFor() {
		// the earliest next attempt is in the past: that scope has waited this long since it fell due
		return (this.nextDueIn != null && this.nextDueIn.isNegative()) ? this.nextDueIn.negated() : Duration.ZERO;
	}

}
