/**
 * Spring Boot auto-configuration of the outbox: {@code waybill.*} properties, the schema, the
 * JDBC store and the publisher.
 */
@NullMarked
package dev.waybill.outbox.autoconfigure;

import org.jspecify.annotations.NullMarked;
