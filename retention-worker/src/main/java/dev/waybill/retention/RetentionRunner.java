package dev.waybill.retention;

/**
 * Runs Waybill's retention purge on demand, besides its schedule: for operators, tests and
 * benchmarks. The auto-configured retention worker implements it; take it from the application
 * context as a {@code RetentionRunner} bean where {@code waybill.retention.*} lets the worker run
 * on this host. {@code waybill.retention.pacing.enabled=false} makes its batches run back to back.
 *
 * @since 0.1
 */
public interface RetentionRunner {

	/**
	 * Runs the purge once, now, on the calling thread: takes the retention lock or returns
	 * {@link RetentionResult#SKIPPED} when another worker holds it, then runs batches while they
	 * come back full, pausing between them as {@code waybill.retention.pacing.*} says. Safe to call
	 * while the worker is scheduled; the lock keeps runs apart. Interrupting the calling thread ends
	 * the run at its next pause (the interrupt stays set); what was purged so far is returned.
	 * @return what the run purged
	 * @throws IllegalStateException when the database fails; the batches committed before stay purged
	 */
	RetentionResult runOnce();

}
