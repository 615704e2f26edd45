package dev.waybill.inbox;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What one consumer did with one message, from its inbox row.
 *
 * @param consumerId the consumer (its queue name)
 * @param state {@code processed}, {@code faulted} (given up: in the error queue) or
 * {@code in-progress} (received, not yet processed, possibly waiting for a redelivery)
 * @param receivedAt when the consumer first received the message
 * @param receiveCount how many deliveries it received
 * @param attempts the failed deliveries recorded (reset when an operator redrives a faulted message)
 * @param processedAt when it was processed, or {@literal null}
 * @param faultedAt when it was given up, or {@literal null}
 * @param lastError the last handler error, or {@literal null}
 * @since 0.1
 */
public record InboxEntry(String consumerId, String state, Instant receivedAt, int receiveCount, int attempts,
		@Nullable Instant processedAt, @Nullable Instant faultedAt, @Nullable String lastError) {

}
