/**
 * Waybill's health components for Spring Boot's health endpoint: the relay and the backlog, and
 * the contract other modules' components (the consumers) implement.
 */
@NullMarked
package dev.waybill.outbox.internal.health;

import org.jspecify.annotations.NullMarked;
