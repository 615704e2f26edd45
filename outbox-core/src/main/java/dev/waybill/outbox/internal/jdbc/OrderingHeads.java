package dev.waybill.outbox.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Keeps each ordering key's head claimable: promotes it once its predecessor is published or
 * skipped, detaches dead scopes from their key at an operator's request, and runs the sweep that
 * promotes a head a writer's stale snapshot held back.
 *
 * @since 0.1
 */
final class OrderingHeads {

	private final StoreStatements statements;

	OrderingHeads(StoreStatements statements) {
		this.statements = statements;
	}

	/**
	 * Makes the head of each key claimable, in a statement after the one that published or
	 * detached its predecessor, so that it sees a writer that committed meanwhile.
	 * @param keys the keys whose heads may have changed, with repeats
	 * @return how many heads were promoted
	 */
	int promote(List<String> keys) {
		if (keys.isEmpty()) {
			return 0;
		}
		return this.statements.autonomous().update((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.statements.sql().promote);
			statement.setArray(1, connection.createArrayOf("text", keys.stream().distinct().toArray()));
			return statement;
		});
	}

	/**
	 * Makes the head of each key claimable after its predecessor was published, waiting for the
	 * key's writers only where the key has nothing unpublished left and a writer held its lock at the
	 * mark (see {@code OutboxSql.promoteAfterPublish}).
	 * @param keys the keys of the scopes just published, with repeats
	 * @param busy those whose lock a writer held at the mark
	 */
	void promoteAfterPublish(List<String> keys, List<String> busy) {
		if (keys.isEmpty()) {
			return;
		}
		Object[] distinct = keys.stream().distinct().toArray();
		List<String> drained = this.statements.autonomous().query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.statements.sql().promoteAfterPublish);
			statement.setArray(1, connection.createArrayOf("text", distinct));
			statement.setArray(2, connection.createArrayOf("text", distinct));
			return statement;
		}, (ResultSet row, int rowNum) -> row.getString(1));
		drained.retainAll(busy);
		if (drained.isEmpty()) {
			return;
		}
		// waits for a writer of these keys that is committing now; its scope is visible to the next statement
		this.statements.autonomous().query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.statements.sql().lockKeys);
			statement.setArray(1, connection.createArrayOf("text", drained.toArray()));
			return statement;
		}, (ResultSet row) -> {
		});
		promote(drained);
	}

	int skip(Collection<UUID> scopeIds) {
		if (scopeIds.isEmpty()) {
			return 0;
		}
		Object[] ids = scopeIds.toArray();
		List<String> keys = new ArrayList<>();
		this.statements.autonomous().query((Connection connection) -> {
			PreparedStatement statement = connection.prepareStatement(this.statements.sql().skip);
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setArray(2, connection.createArrayOf("uuid", ids));
			return statement;
		}, (ResultSet row) -> {
			keys.add(row.getString(1));
		});
		if (promote(keys) > 0) {
			this.statements.notifyRelays(1);
		}
		return keys.size();
	}

	int promoteHeldHeads() {
		return this.statements.autonomous().update(this.statements.sql().sweep);
	}

}
