/**
 * Waybill's health components for Spring Boot's health endpoint: the relay and the backlog, and
 * the contract other modules' components (the consumers) implement.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.health;

import org.jspecify.annotations.NullMarked;
