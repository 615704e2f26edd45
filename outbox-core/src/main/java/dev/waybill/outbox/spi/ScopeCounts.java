package dev.waybill.outbox.spi;

/**
 * How many outbox scopes wait for delivery and how many are dead.
 *
 * @param pending scopes not yet published, claimed or not
 * @param dead scopes that exhausted their attempts and wait for a redrive
 * @since 0.1
 */
public record ScopeCounts(long pending, long dead) {
}
