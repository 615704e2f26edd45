/**
 * What the outbox's auto-configuration and properties classes share: the checks of
 * {@code waybill.*} values and their conversion into the relay's settings.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.autoconfigure;

import org.jspecify.annotations.NullMarked;
