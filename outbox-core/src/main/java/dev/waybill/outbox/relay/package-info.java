/**
 * Listening to the relay: implement {@link dev.waybill.outbox.relay.RelayListener} as a bean to
 * hear of each scope published, retried, dead-lettered or released. The relay itself is
 * auto-configured and internal.
 */
@NullMarked
package dev.waybill.outbox.relay;

import org.jspecify.annotations.NullMarked;
