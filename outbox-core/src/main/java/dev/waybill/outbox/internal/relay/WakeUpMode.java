package dev.waybill.outbox.internal.relay;

/**
 * How the relay learns that another instance committed outbox rows.
 *
 * @since 0.1
 */
public enum WakeUpMode {

	/** Checked at start-up ({@link NotificationProbe}): {@link #LISTEN} where it works, else {@link #POLL}. */
	AUTO,

	/** PostgreSQL {@code LISTEN/NOTIFY} on a connection held for it. */
	LISTEN,

	/** A claim every poll interval of the fallback, no connection held. */
	POLL

}
