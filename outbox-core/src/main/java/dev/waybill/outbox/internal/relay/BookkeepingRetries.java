package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The settler's outcomes whose write did not go through (the database connection was lost, say),
 * tried again promptly with backoff (50 ms, doubling, at most 2 s) and kept here meanwhile: the
 * leases are renewed while they are held, and the writes are fenced by the lease owner, so a late
 * write is harmless. Past a lease an outcome is left to its lease, like that of a relay that died.
 * Only the settling thread uses it.
 */
final class BookkeepingRetries {

	// Under the settler's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Settler.class);

	static final Duration BOOKKEEPING_FIRST_DELAY = Duration.ofMillis(50);

	static final Duration BOOKKEEPING_MAX_DELAY = Duration.ofSeconds(2);

	private final Leases leases;

	private final List<Outcome> retries = new ArrayList<>();

	private long retryAt;

	private int bookkeepingFailures;

	BookkeepingRetries(Leases leases) {
		this.leases = leases;
	}

	/**
	 * How long the settling thread may wait for new outcomes before a retry falls due.
	 * @param longest the longest it waits otherwise, in milliseconds
	 * @return the wait in milliseconds
	 */
	long pollMillis(long longest) {
		long wait = longest;
		if (!this.retries.isEmpty()) {
			wait = Math.min(wait, Math.max(0, TimeUnit.NANOSECONDS.toMillis(this.retryAt - System.nanoTime())));
		}
		return wait;
	}

	/**
	 * Moves the retries into {@code batch} once they are due.
	 * @param batch the outcomes the settling thread records next
	 */
	void takeDue(List<Outcome> batch) {
		if (!this.retries.isEmpty() && System.nanoTime() - this.retryAt >= 0) {
			batch.addAll(this.retries);
			this.retries.clear();
		}
	}

	/** Returns how many outcomes wait for their write to be tried again. */
	int waiting() {
		return this.retries.size();
	}

	/**
	 * Takes what one settling round could not write: kept for a retry, or given up past a lease;
	 * a round that wrote everything ends a series of failures.
	 * @param failed the round's failed writes
	 */
	void roundEnded(FailedWrites failed) {
		List<Outcome> outcomes = failed.outcomes();
		if (outcomes.isEmpty()) {
			if (this.bookkeepingFailures > 0) {
				logger.info("Waybill relay recorded the delivery outcomes again after " + this.bookkeepingFailures
						+ " failed attempt(s)");
				this.bookkeepingFailures = 0;
			}
			return;
		}
		this.bookkeepingFailures++;
		Duration delay = bookkeepingDelay(this.bookkeepingFailures);
		long now = System.nanoTime();
		for (Outcome outcome : outcomes) {
			if (outcome.unrecordedSince == 0) {
				outcome.unrecordedSince = now;
			}
			if (now - outcome.unrecordedSince > this.leases.lease().toNanos()) {
				this.leases.settled(outcome.scope());
				logger.warn("Waybill relay gives up recording the outcome of scope " + outcome.scope().id()
						+ " after a lease; it is delivered again once its lease expires: " + failed.lastError());
			}
			else {
				this.retries.add(outcome);
			}
		}
		this.retryAt = System.nanoTime() + delay.toNanos();
		if (this.bookkeepingFailures == 1) {
			logger.warn("Waybill relay could not record the delivery outcome of " + outcomes.size()
					+ " scope(s); retrying with backoff, from " + delay.toMillis() + " ms: " + failed.lastError());
		}
		else {
			logger.debug("Waybill relay still cannot record delivery outcomes (try " + this.bookkeepingFailures
					+ "), next in " + delay.toMillis() + " ms: " + failed.lastError());
		}
	}

	static Duration bookkeepingDelay(int failures) {
		long millis = BOOKKEEPING_FIRST_DELAY.toMillis() << Math.min(failures - 1, 10);
		return Duration.ofMillis(Math.min(millis, BOOKKEEPING_MAX_DELAY.toMillis()));
	}

}
