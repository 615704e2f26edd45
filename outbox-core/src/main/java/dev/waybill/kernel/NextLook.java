package dev.waybill.kernel;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * When a background worker that serves many stores next looks at one store's table: when what
 * it found due there comes due, at the latest a poll interval after its last look (which finds
 * what other instances changed), and at once after a change made on this instance. So an idle
 * store costs one look per poll interval, however often the worker's loop passes for the others.
 *
 * @since 0.1
 */
public final class NextLook {

	private final long pollNanos;

	private volatile long lookedAt;

	private volatile long dueAt;

	private volatile boolean stale = true;

	/**
	 * Creates the timer; the first look is due at once.
	 * @param pollInterval the longest time between two looks
	 */
	public NextLook(Duration pollInterval) {
		this.pollNanos = pollInterval.toNanos();
	}

	/**
	 * Returns how long until the next look.
	 * @return the time left, or {@literal null} when a look is due now
	 */
	public @Nullable Duration left() {
		if (this.stale) {
			return null;
		}
		long now = System.nanoTime();
		long left = Math.min(this.dueAt - now, this.lookedAt + this.pollNanos - now);
		return (left > 0) ? Duration.ofNanos(left) : null;
	}

	/**
	 * Records a look.
	 * @param untilDue how long until what it found comes due
	 */
	public void looked(Duration untilDue) {
		long now = System.nanoTime();
		this.lookedAt = now;
		this.dueAt = now + untilDue.toNanos();
		this.stale = false;
	}

	/** Makes a look due at once: something changed that the last look did not see. */
	public void changed() {
		this.stale = true;
	}

}
