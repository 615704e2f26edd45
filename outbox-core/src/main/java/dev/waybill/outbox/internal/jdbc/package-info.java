/**
 * The PostgreSQL outbox: table names, the JDBC store the publisher writes through and the relay
 * claims from, and the Liquibase schema initializer.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.outbox.internal.jdbc;

import org.jspecify.annotations.NullMarked;
