/**
 * Replay: publishes archived or still-retained published messages again through the outbox,
 * selected by destination, message type and time window, paced and resumable; see {@link dev.waybill.replay.Replays}.
 */
@NullMarked
package dev.waybill.replay;

import org.jspecify.annotations.NullMarked;
