/**
 * What Waybill's own modules share and nothing else: the table names and their validation
 * ({@link dev.waybill.kernel.OutboxTables}, {@link dev.waybill.kernel.AuxiliaryTables}), how a
 * database failure is classified ({@link dev.waybill.kernel.DatabaseFailures}) and what PostgreSQL
 * can store ({@link dev.waybill.kernel.PostgresText}), message type names and checks, time-ordered
 * ids, host names, the relay's wake-up, background loops and outage logging.
 * <p>
 * Not part of Waybill's API: applications depend on the API and {@code spi} packages. Every module
 * of Waybill may use this package; no module uses another module's {@code internal} packages.
 */
@NullMarked
package dev.waybill.kernel;

import org.jspecify.annotations.NullMarked;
