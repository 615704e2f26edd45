package dev.waybill.outbox.internal.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.internal.DirectScopes;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;

/**
 * Writes a transaction's scope and its messages on the transaction's connection: one scope row
 * per ordering key, each key's lock taken before any is written and held until commit (see
 * {@link OutboxSql#write}), and the scope without a key leased to this process's relay when it
 * can publish it right after the commit.
 *
 * @since 0.1
 */
final class ScopeWriter {

	private final OutboxSql sql;

	private volatile @Nullable DirectDispatcher directDispatcher;

	ScopeWriter(OutboxSql sql) {
		this.sql = sql;
	}

	void setDirectDispatcher(@Nullable DirectDispatcher dispatcher) {
		this.directDispatcher = dispatcher;
	}

	int write(Connection connection, OutboxScope scope) throws SQLException {
		List<OutboxScope> parts = scope.perOrderingKey();
		lockKeys(connection, parts);
		// Keyed parts are claimed in their keys' order, so only the unkeyed part can be leased.
		DirectDispatcher dispatcher = this.directDispatcher;
		DirectDispatcher.Lease lease = null;
		if (dispatcher != null) {
			OutboxScope unkeyed = null;
			for (OutboxScope part : parts) {
				if (part.orderingKey() == null) {
					unkeyed = part;
				}
			}
			lease = DirectScopes.reserve(dispatcher, unkeyed, parts.size() > ((unkeyed != null) ? 1 : 0), connection);
		}
		String leaseOwner = (lease != null) ? lease.owner() : null;
		Long leaseMillis = (lease != null) ? lease.duration().toMillis() : null;
		if (parts.size() == 1 && parts.get(0).messages().size() == 1) {
			return writeOne(connection, scope, parts.get(0), leaseOwner, leaseMillis);
		}
		return writeMany(connection, scope, parts, leaseOwner, leaseMillis);
	}

	private void lockKeys(Connection connection, List<OutboxScope> parts) throws SQLException {
		List<String> keys = new ArrayList<>();
		for (OutboxScope part : parts) {
			String key = part.orderingKey();
			if (key != null) {
				keys.add(key);
			}
		}
		if (!keys.isEmpty()) {
			try (PreparedStatement lock = connection.prepareStatement(this.sql.lockKeys)) {
				lock.setArray(1, connection.createArrayOf("text", keys.toArray()));
				lock.executeQuery().close();
			}
		}
	}

	private int writeMany(Connection connection, OutboxScope scope, List<OutboxScope> parts,
			@Nullable String leaseOwner, @Nullable Long leaseMillis) throws SQLException {
		List<OutboxMessage> messages = new ArrayList<>();
		List<Object> outboxIds = new ArrayList<>();
		for (OutboxScope part : parts) {
			for (OutboxMessage message : part.messages()) {
				messages.add(message);
				outboxIds.add(part.id());
			}
		}
		try (PreparedStatement statement = connection.prepareStatement(this.sql.write)) {
			statement.setObject(1, scope.inboundMessageId());
			statement.setString(2, scope.consumerId());
			int index = 3;
			statement.setArray(index++, connection.createArrayOf("uuid", parts.stream().map(OutboxScope::id).toArray()));
			statement.setArray(index++, connection.createArrayOf("text", parts.stream()
				.map((part) -> (part.notBefore() != null) ? part.notBefore().toString() : null).toArray()));
			statement.setArray(index++, connection.createArrayOf("text", parts.stream().map(OutboxScope::orderingKey).toArray()));
			statement.setArray(index++, connection.createArrayOf("int4", parts.stream().map((part) -> part.messages().size()).toArray()));
			statement.setString(index++, leaseOwner);
			statement.setObject(index++, leaseMillis, Types.BIGINT);
			statement.setArray(index++, connection.createArrayOf("uuid", outboxIds.toArray()));
			statement.setArray(index++, array(connection, "uuid", messages, OutboxMessage::messageId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::destination));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::routingKey));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::messageType));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::contentType));
			statement.setArray(index++, array(connection, "text", messages, (m) -> HeaderCodec.write(m.headers())));
			statement.setArray(index++, connection.createArrayOf("bytea", messages.stream().map(OutboxMessage::body).toArray(byte[][]::new)));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::correlationId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::conversationId));
			statement.setArray(index++, array(connection, "text", messages, OutboxMessage::sourceHost));
			statement.setArray(index++, array(connection, "text", messages, (m) -> m.sentAt().toString()));
			statement.setArray(index++, array(connection, "text", messages, (m) -> text(m.notBefore())));
			statement.setArray(index, array(connection, "text", messages, (m) -> text(m.expiresAt())));
			return statement.executeUpdate();
		}
	}

	private int writeOne(Connection connection, OutboxScope scope, OutboxScope part, @Nullable String leaseOwner,
			@Nullable Long leaseMillis) throws SQLException {
		OutboxMessage message = part.messages().get(0);
		try (PreparedStatement statement = connection.prepareStatement(this.sql.writeOne)) {
			statement.setObject(1, part.id());
			statement.setString(2, text(part.notBefore()));
			statement.setObject(3, scope.inboundMessageId());
			statement.setString(4, scope.consumerId());
			statement.setString(5, part.orderingKey());
			statement.setString(6, leaseOwner);
			statement.setObject(7, leaseMillis, Types.BIGINT);
			statement.setObject(8, message.messageId());
			statement.setString(9, message.destination());
			statement.setString(10, message.routingKey());
			statement.setString(11, message.messageType());
			statement.setString(12, message.contentType());
			statement.setString(13, HeaderCodec.write(message.headers()));
			statement.setBytes(14, message.body());
			statement.setString(15, message.correlationId());
			statement.setString(16, message.conversationId());
			statement.setString(17, message.sourceHost());
			statement.setString(18, message.sentAt().toString());
			statement.setString(19, text(message.notBefore()));
			statement.setString(20, text(message.expiresAt()));
			return statement.executeUpdate();
		}
	}

	private static @Nullable String text(@Nullable Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

	private static <T> Array array(Connection connection, String type, List<OutboxMessage> messages,
			Function<OutboxMessage, @Nullable T> column) throws SQLException {
		Object[] values = new Object[messages.size()];
		for (int i = 0; i < values.length; i++) {
			values[i] = column.apply(messages.get(i));
		}
		return connection.createArrayOf(type, values);
	}

}
