/**
 * The relay: claims committed outbox scopes, publishes them through a {@link dev.waybill.outbox.spi.Transport} with confirms, and settles them (published, retried with backoff, dead-lettered or released), behind a circuit breaker and woken by commits.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.relay;

import org.jspecify.annotations.NullMarked;
