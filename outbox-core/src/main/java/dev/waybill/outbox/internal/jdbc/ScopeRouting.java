package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.OutboxScope;

/**
 * Sends what the default store's {@link JdbcOutboxStore} is asked to write to the store the
 * transaction (or the connection) belongs to, when that is another one; every writer on top of
 * it (the publisher, the consumer outbox, the Hibernate integration, an application's own) is
 * routed so.
 *
 * @since 0.1
 */
public interface ScopeRouting {

	/**
	 * Checks the current transaction when it belongs to another store.
	 * @return whether it does (else the asking store checks it)
	 */
	boolean checkElsewhere();

	/**
	 * Writes the scope in the current transaction when the transaction belongs to another store.
	 * @param scope the scope
	 * @return whether it did (else the asking store writes it)
	 */
	boolean writeElsewhere(OutboxScope scope);

	/**
	 * Writes the scope on the connection when the connection belongs to another store.
	 * @param connection the caller's connection
	 * @param scope the scope
	 * @return the message rows written, or {@code -1} when the asking store writes it
	 * @throws SQLException when the database refuses the statement
	 */
	int writeElsewhere(Connection connection, OutboxScope scope) throws SQLException;

	/**
	 * Cancels a scheduled scope in the current transaction when it belongs to another store.
	 * @param scopeId the scope
	 * @return whether it was cancelled, or {@literal null} when the asking store cancels it
	 */
	@Nullable Boolean cancelElsewhere(UUID scopeId);

	/**
	 * Cancels a scheduled scope on the connection when it belongs to another store.
	 * @param connection the caller's connection
	 * @param scopeId the scope
	 * @return whether it was cancelled, or {@literal null} when the asking store cancels it
	 * @throws SQLException when the database refuses the statement
	 */
	@Nullable Boolean cancelElsewhere(Connection connection, UUID scopeId) throws SQLException;

}
