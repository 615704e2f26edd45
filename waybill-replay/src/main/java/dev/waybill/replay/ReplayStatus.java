package dev.waybill.replay;

/**
 * The state of a replay job.
 *
 * @since 0.1
 */
public enum ReplayStatus {

	/** Batches are being written. */
	RUNNING,

	/** Stopped by an operator; resumes from its cursor. */
	PAUSED,

	/** Every selected message was written to the outbox. */
	COMPLETED,

	/** Stopped for good by an operator; what was written stays written. */
	CANCELLED

}
