/**
 * The Hibernate integration's machinery: the integrator and listener that collect entities' events at flush and write them to the outbox through the session's own connection.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.hibernate.internal;

import org.jspecify.annotations.NullMarked;
