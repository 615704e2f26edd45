/**
 * The sample order service: Spring Data JPA orders, their events written through Waybill's outbox
 * in the same transaction, and an HTTP API.
 */
@NullMarked
package dev.waybill.samples.orders;

import org.jspecify.annotations.NullMarked;
