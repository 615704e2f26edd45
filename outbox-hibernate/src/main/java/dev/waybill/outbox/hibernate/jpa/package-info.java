/**
 * Read-only JPA mappings of Waybill's tables, for applications that query them, and the naming
 * strategy that points them at the configured schema and table names.
 */
@NullMarked
package dev.waybill.outbox.hibernate.jpa;

import org.jspecify.annotations.NullMarked;
