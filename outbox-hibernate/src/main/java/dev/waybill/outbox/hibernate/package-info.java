/**
 * Domain events raised by JPA entities ({@link dev.waybill.outbox.hibernate.AbstractOutboxAggregate},
 * {@link dev.waybill.outbox.hibernate.OutboxEventSource}) and written to the outbox by the Hibernate
 * flush of the same transaction, through the session's own connection (the integrator that does it
 * is auto-configured and internal).
 */
@NullMarked
package dev.waybill.outbox.hibernate;

import org.jspecify.annotations.NullMarked;
