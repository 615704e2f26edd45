package dev.waybill.outbox.internal;

import java.time.Duration;
import java.util.Objects;

import dev.waybill.outbox.OutboxStats;

/**
 * The latest backlog figures the relay read, shared with the publisher's back-pressure check
 * and the metrics so neither has to query the database.
 *
 * @since 0.1
 */
public final class OutboxBacklog {

	private volatile Reading reading = new Reading(OutboxStats.EMPTY, System.nanoTime());

	/**
	 * Returns the latest figures.
	 * @return the figures; {@link OutboxStats#EMPTY} until the relay first reads them
	 */
	public OutboxStats current() {
		return this.reading.stats;
	}

	/**
	 * Replaces the figures.
	 * @param stats the new figures
	 */
	public void update(OutboxStats stats) {
		this.reading = new Reading(Objects.requireNonNull(stats, "stats must not be null"), System.nanoTime());
	}

	/**
	 * Returns how long the oldest due scope has been due now: what the last reading said, plus the
	 * time since it was taken. While the figures cannot be read again (the database is away, the
	 * relay halted), nothing is claimed either, so the age keeps growing, as the lag does, instead
	 * of standing at the figure of the last reading.
	 * @return the time, zero when no scope is due
	 * @since 0.1
	 */
	public Duration oldestDueFor() {
		Reading reading = this.reading;
		Duration nextDueIn = reading.stats.nextDueIn();
		if (nextDueIn == null) {
			return Duration.ZERO;
		}
		Duration due = Duration.ofNanos(System.nanoTime() - reading.readAt).minus(nextDueIn);
		return due.isNegative() ? Duration.ZERO : due;
	}

	private record Reading(OutboxStats stats, long readAt) {
	}

}
