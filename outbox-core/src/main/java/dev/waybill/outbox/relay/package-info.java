/**
 * The relay: claims committed outbox scopes, publishes them through a
 * {@link dev.waybill.outbox.spi.Transport} with confirms, and settles them (published, retried
 * with backoff, dead-lettered or released), behind a circuit breaker and woken by commits.
 */
@NullMarked
package dev.waybill.outbox.relay;

import org.jspecify.annotations.NullMarked;
