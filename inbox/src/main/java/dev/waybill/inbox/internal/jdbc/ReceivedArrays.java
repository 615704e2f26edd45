package dev.waybill.inbox.internal.jdbc;

import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.PreparedStatementSetter;

import dev.waybill.inbox.internal.jdbc.InboxStore.Received;

/**
 * Binds a batch's deliveries as the three array parameters of the inbox's many-row statements:
 * message ids, consumer ids and receipt counts, in the list's order.
 */
final class ReceivedArrays {

	private ReceivedArrays() {
	}

	static PreparedStatementSetter of(List<Received> received) {
		UUID[] ids = new UUID[received.size()];
		String[] consumers = new String[received.size()];
		Integer[] counts = new Integer[received.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = received.get(i).key().messageId();
			consumers[i] = received.get(i).key().consumerId();
			counts[i] = received.get(i).receipts();
		}
		return arrays(uuids(ids), texts(consumers), integers(counts));
	}

	/** One array parameter of a many-row statement: PostgreSQL's element type and the values. */
	private record SqlArray(String type, Object[] values) {
	}

	private static SqlArray uuids(UUID[] values) {
		return new SqlArray("uuid", values);
	}

	private static SqlArray texts(String[] values) {
		return new SqlArray("text", values);
	}

	private static SqlArray integers(Integer[] values) {
		return new SqlArray("integer", values);
	}

	/** Binds the arrays as the statement's parameters, in order. */
	private static PreparedStatementSetter arrays(SqlArray... arrays) {
		return (statement) -> {
			for (int i = 0; i < arrays.length; i++) {
				statement.setArray(i + 1, statement.getConnection().createArrayOf(arrays[i].type(), arrays[i].values()));
			}
		};
	}

}
