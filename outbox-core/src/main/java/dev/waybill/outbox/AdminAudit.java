package dev.waybill.outbox;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.PostgresText;

/**
 * The audit trail of what operators change through the admin APIs (redrive, delete, discard): one
 * log line at INFO per change, on the logger {@code dev.waybill.outbox.AdminAudit}, saying who, when
 * and what, and one count on every {@link ActionCounter} (the metrics auto-configuration adds the
 * meter {@code waybill.admin.actions}, tagged {@code action}).
 *
 * @since 0.1
 */
public final class AdminAudit {

	/** The actor recorded when the application itself calls an admin API without naming one. */
	public static final String APPLICATION = "application";

	private static final Log logger = LogFactory.getLog(AdminAudit.class);

	private final Supplier<Stream<ActionCounter>> counters;

	private final Clock clock;

	/**
	 * Creates an audit that counts on the given counters, looked up at each change.
	 * @param counters the counters
	 * @param clock the clock for the time recorded
	 */
	public AdminAudit(Supplier<Stream<ActionCounter>> counters, Clock clock) {
		this.counters = Objects.requireNonNull(counters, "counters must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
	}

	/**
	 * Returns an audit that only logs.
	 * @return the audit
	 */
	public static AdminAudit logOnly() {
		return new AdminAudit(Stream::empty, Clock.systemUTC());
	}

	/**
	 * Records one change.
	 * @param actor who made it (a user name, {@link #APPLICATION} when unknown)
	 * @param action what kind of change, e.g. {@code outbox.redrive}; a meter tag, so a fixed word
	 * @param what what it changed, e.g. the ids
	 * @param affected how many rows or messages it changed
	 */
	public void record(String actor, String action, String what, int affected) {
		Instant now = this.clock.instant();
		// The actor and target may come from a request: quote them so a line cannot be forged.
		logger.info("Waybill admin action '" + action + "' by '" + PostgresText.readable(actor, 200) + "' at " + now + ": "
				+ PostgresText.readable(what, 2000) + " (" + affected + " affected)");
		this.counters.get().forEach((counter) -> counter.count(action));
	}

	/**
	 * Counts admin actions, e.g. on a meter.
	 */
	@FunctionalInterface
	public interface ActionCounter {

		/**
		 * Counts one action.
		 * @param action the action
		 */
		void count(String action);

	}

}
