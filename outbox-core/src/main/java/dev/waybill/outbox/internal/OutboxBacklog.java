package dev.waybill.outbox.internal;

import java.util.Objects;

import dev.waybill.outbox.OutboxStats;

/**
 * The latest backlog figures the relay read, shared with the publisher's back-pressure check
 * and the metrics so neither has to query the database.
 *
 * @since 0.1
 */
public final class OutboxBacklog {

	private volatile OutboxStats current = OutboxStats.EMPTY;

	/**
	 * Returns the latest figures.
	 * @return the figures; {@link OutboxStats#EMPTY} until the relay first reads them
	 */
	public OutboxStats current() {
		return this.current;
	}

	/**
	 * Replaces the figures.
	 * @param stats the new figures
	 */
	public void update(OutboxStats stats) {
		this.current = Objects.requireNonNull(stats, "stats must not be null");
	}

}
