package dev.waybill.outbox.rabbit;

import org.jspecify.annotations.Nullable;

/**
 * The error queue of one consumer endpoint.
 *
 * @param queue the consumer's queue
 * @param errorQueue its error queue, {@code <queue>_error}
 * @param depth the messages ready in the error queue, or -1 when it could not be read
 * @param problem why the depth could not be read (e.g. the queue does not exist), else {@literal null}
 * @since 0.1
 */
public record ErrorQueueInfo(String queue, String errorQueue, long depth, @Nullable String problem) {

}
