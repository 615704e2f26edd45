package dev.waybill.samples.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What a demo run did and whether every order was billed exactly once.
 *
 * @param orders orders placed
 * @param unbillable orders placed with a payment method billing cannot handle
 * @param published messages the two relays published (order service, billing service)
 * @param handled messages handlers processed (each once)
 * @param billedOnce billable orders with exactly one payment
 * @param billedTwice orders with more than one payment
 * @param unbilled billable orders with no payment when the run ended
 * @param retried deliveries that failed and were scheduled for redelivery
 * @param republished messages the simulated relay crash published a second time
 * @param duplicatesSuppressed deliveries the inboxes recognised as duplicates
 * @param errors messages moved to an error queue
 * @param errorQueueDepth messages waiting in billing's error queue at the end
 * @param purged rows the retention workers deleted (both services)
 * @param elapsed from the first order to the end of the flow
 * @param problems why the run failed; empty when it succeeded
 */
public record DemoResult(int orders, int unbillable, long published, long handled, long billedOnce, long billedTwice,
		long unbilled, long retried, long republished, long duplicatesSuppressed, long errors, long errorQueueDepth,
		long purged, Duration elapsed, List<String> problems) {

	public DemoResult {
		problems = List.copyOf(problems);
	}

	/**
	 * Tells whether the run succeeded: every billable order billed exactly once, every copy
	 * suppressed, the unbillable orders in the error queue, rows purged.
	 * @return whether there are no problems
	 */
	public boolean ok() {
		return this.problems.isEmpty();
	}

	/**
	 * Returns the summary the demo prints.
	 * @return the summary, several lines
	 */
	public String summary() {
		double seconds = Math.max(this.elapsed.toMillis(), 1) / 1000.0;
		StringBuilder out = new StringBuilder("\nSummary\n");
		line(out, "orders placed", "%,d (%,d billable, %,d paid by BARTER, which billing cannot handle)", this.orders,
				this.orders - this.unbillable, this.unbillable);
		line(out, "messages published", "%,d (both relays; retries, copies and faults included)", this.published);
		line(out, "handled once", "%,d (messages whose handler ran and committed)", this.handled);
		line(out, "billed exactly once", "%,d of %,d billable orders (%,d billed twice, %,d not billed)",
				this.billedOnce, this.orders - this.unbillable, this.billedTwice, this.unbilled);
		line(out, "retried", "%,d (first attempts failed on purpose, then redelivered)", this.retried);
		line(out, "duplicates suppressed", "%,d of %,d messages a simulated relay crash published twice",
				this.duplicatesSuppressed, this.republished);
		line(out, "errors", "%,d (in billing.orders_error: %,d)", this.errors, this.errorQueueDepth);
		line(out, "rows purged", "%,d (completed rows, by the retention workers)", this.purged);
		line(out, "elapsed", "%.1f s, %,.0f messages/s published (paced by the HTTP order placement; "
				+ "BENCHMARKS.md measures throughput)", seconds, this.published / seconds);
		out.append('\n');
		if (ok()) {
			out.append("OK: every order was billed exactly once.\n");
		}
		else {
			out.append("FAILED:\n");
			this.problems.forEach((problem) -> out.append("  - ").append(problem).append('\n'));
		}
		return out.toString();
	}

	private static void line(StringBuilder out, String label, String format, Object... values) {
		out.append(String.format(Locale.ROOT, "  %-22s ", label))
			.append(String.format(Locale.ROOT, format, values))
			.append('\n');
	}

}
