/**
 * The RabbitMQ transport: {@link dev.waybill.outbox.rabbit.internal.RabbitTransport} publishes outbox
 * messages over one recovering connection, with publisher confirms and {@code mandatory} returns.
 */
@NullMarked
package dev.waybill.outbox.rabbit;

import org.jspecify.annotations.NullMarked;
