package dev.waybill.outbox.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

/**
 * An {@link OutboxWriter} that also writes through a connection its caller holds, for a
 * persistence technology that owns the transaction's connection itself (the Hibernate integration
 * writes through its session's connection, after the session's last flush). The caller's
 * transaction commits or rolls back what is written; nothing here commits.
 *
 * @since 0.1
 */
public interface ConnectionOutboxWriter extends OutboxWriter {

	/**
	 * Writes a scope and its messages, in order, on the given connection, as
	 * {@link #write(OutboxScope)} does on the current transaction's.
	 * @param connection the connection of the transaction to write in, must not be {@literal null}
	 * @param scope the scope to write, must not be {@literal null}
	 * @return the number of message rows written
	 * @throws SQLException when the database refuses the statement
	 */
	int write(Connection connection, OutboxScope scope) throws SQLException;

	/**
	 * Cancels a committed, scheduled scope on the given connection, as {@link #cancel(UUID)} does in
	 * the current transaction.
	 * @param connection the connection of the transaction to cancel in, must not be {@literal null}
	 * @param scopeId the scope, must not be {@literal null}
	 * @return whether it was cancelled
	 * @throws SQLException when the database refuses the statement
	 */
	boolean cancel(Connection connection, UUID scopeId) throws SQLException;

}
