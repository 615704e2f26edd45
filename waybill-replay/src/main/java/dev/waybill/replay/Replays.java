package dev.waybill.replay;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Re-publishes published messages through the outbox: those the retention worker archived
 * ({@code waybill.retention.archive-after} set) and those still retained in the outbox tables. A job
 * is a row; batches are written by the replay worker of any instance, each batch in one
 * transaction that writes an outbox scope and advances the job's cursor together, so a crash
 * loses or repeats no batch and the job resumes where it stood. Only messages published before
 * the job was created are selected, in their original order.
 *
 * @since 0.1
 */
public interface Replays {

	/**
	 * Creates a running job.
	 * @param request what to replay and how
	 * @return the job
	 */
	ReplayJob start(ReplayRequest request);

	/**
	 * Returns a job.
	 * @param id the job id
	 * @return the job, or empty
	 */
	Optional<ReplayJob> find(UUID id);

	/**
	 * Returns every job, newest first.
	 * @return the jobs
	 */
	List<ReplayJob> list();

	/**
	 * Pauses a running job after its current batch.
	 * @param id the job id
	 * @return whether a running job was paused
	 */
	boolean pause(UUID id);

	/**
	 * Resumes a paused job from its cursor.
	 * @param id the job id
	 * @return whether a paused job was resumed
	 */
	boolean resume(UUID id);

	/**
	 * Cancels a running or paused job; what it wrote stays written.
	 * @param id the job id
	 * @return whether a job was cancelled
	 */
	boolean cancel(UUID id);

}
