package dev.waybill.benchmarks;

import java.util.List;

import dev.waybill.outbox.autoconfigure.NotificationProperties;
import dev.waybill.outbox.test.TestPostgres;

/**
 * One case of {@link PooledLatency}: whether the application's connections go through the
 * transaction-mode pooler, and how the relay learns of the commits of another instance
 * ({@code waybill.notifications.mode}).
 *
 * @param label how the case's figures are named, ending in a space
 * @param pooled whether the application's DataSource goes through the pooler
 * @param mode the wake-up mode the relay is configured with, and must run in
 */
record WakeUpCase(String label, boolean pooled, NotificationProperties.Mode mode) {

	/** The reference: no pooler, {@code LISTEN} on a connection of the application's pool. */
	static final WakeUpCase REFERENCE = new WakeUpCase("no pooler, LISTEN (reference) ", false,
			NotificationProperties.Mode.LISTEN);

	/**
	 * Every case, the reference first: through the pooler with {@code LISTEN} on a direct
	 * connection, and polling with and without the pooler, which separates the pooler's share from
	 * the poll's.
	 */
	static final List<WakeUpCase> ALL = List.of(REFERENCE,
			new WakeUpCase("PgBouncer, LISTEN direct ", true, NotificationProperties.Mode.LISTEN),
			new WakeUpCase("no pooler, " + poll(), false, NotificationProperties.Mode.POLL),
			new WakeUpCase("PgBouncer, " + poll(), true, NotificationProperties.Mode.POLL));

	/** The polling cases' label: the default {@code waybill.notifications.poll-interval}, which they run with. */
	private static String poll() {
		return "poll every " + new NotificationProperties().getPollInterval().toMillis() + " ms ";
	}

	/**
	 * Sets the relay instance's wake-up: the mode and, through the pooler, {@code LISTEN} on a
	 * connection straight to PostgreSQL, since a transaction-mode pooler keeps no session to listen on.
	 * @param app the relay instance
	 * @param direct the database without the pooler
	 * @return the builder
	 */
	WaybillApp.Builder configure(WaybillApp.Builder app, TestPostgres direct) {
		app.property("waybill.notifications.mode", this.mode.name().toLowerCase(java.util.Locale.ROOT));
		if (this.pooled && this.mode == NotificationProperties.Mode.LISTEN) {
			app.property("waybill.notifications.url", direct.url())
				.property("waybill.notifications.username", direct.user())
				.property("waybill.notifications.password", direct.password());
		}
		return app;
	}

	/**
	 * The mode the relay's notification listener must report in effect.
	 * @return {@code "listen"} or {@code "poll"}, as {@link dev.waybill.outbox.test.RelayWakeUps#mode()} says it
	 */
	String expected() {
		return this.mode.name().toLowerCase(java.util.Locale.ROOT);
	}

}
