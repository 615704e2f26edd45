/**
 * The PostgreSQL outbox: table names, the JDBC store the publisher writes through and the relay
 * claims from, and the Liquibase schema initializer.
 */
@NullMarked
package dev.waybill.outbox.internal.jdbc;

import org.jspecify.annotations.NullMarked;
