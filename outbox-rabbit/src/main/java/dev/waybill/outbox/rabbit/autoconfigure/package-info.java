/**
 * Spring Boot auto-configuration of the RabbitMQ transport and its {@code waybill.rabbit.*}
 * properties.
 */
@NullMarked
package dev.waybill.outbox.rabbit.autoconfigure;

import org.jspecify.annotations.NullMarked;
