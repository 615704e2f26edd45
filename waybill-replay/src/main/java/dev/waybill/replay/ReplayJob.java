package dev.waybill.replay;

import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A replay job as its row stands: the request, and the progress every instance shares.
 *
 * @param id the job id
 * @param status the state
 * @param request what is replayed, and how
 * @param upperSequence the highest outbox sequence number when the job was created: later
 * messages are not selected; copies written by any replay job (header {@code waybill-replay-job})
 * are never selected, below the bound either
 * @param lastSequence the cursor: every selected message up to this sequence number was written
 * @param replayed how many messages were written to the outbox so far
 * @param batches how many batches committed
 * @param createdAt when the job was created
 * @param updatedAt when it last changed
 * @param completedAt when it completed, or {@literal null}
 * @since 0.1
 */
public record ReplayJob(UUID id, ReplayStatus status, ReplayRequest request, long upperSequence, long lastSequence,
		long replayed, long batches, Instant createdAt, Instant updatedAt, @Nullable Instant completedAt) {

}
