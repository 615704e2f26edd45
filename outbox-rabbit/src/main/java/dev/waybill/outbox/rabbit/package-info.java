/**
 * RabbitMQ specifics a user sees: the AMQP header names Waybill sets
 * ({@link dev.waybill.outbox.rabbit.RabbitHeaders}). The transport and the receive endpoint are
 * auto-configured (see {@code dev.waybill.outbox.rabbit.autoconfigure}) and internal.
 */
@NullMarked
package dev.waybill.outbox.rabbit;

import org.jspecify.annotations.NullMarked;
