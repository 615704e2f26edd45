/**
 * The {@code consumers} component of the {@code waybill} health contributor.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.rabbit.internal.health;

import org.jspecify.annotations.NullMarked;
