package dev.waybill.outbox.internal.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.RowCallbackHandler;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.OutboxStats;

/**
 * Tells, in one statement, which of several table sets of one database have a scope due (what a
 * claim would look for first: pending, due, not held back behind its key) and since when, read
 * from the first entry of each set's ready index: one round trip in place of a claim per set. And
 * reads, in one more, their backlog figures (those {@link dev.waybill.outbox.OutboxAdmin#stats()}
 * gives for one).
 *
 * @since 0.1
 */
public final class DueProbe {

	private final JdbcTemplate jdbc;

	private final List<OutboxTables> tables;

	private final String sql;

	private final String backlogs;

	/**
	 * Creates the probe.
	 * @param dataSource the database
	 * @param tables the table sets in it, at least one
	 */
	public DueProbe(DataSource dataSource, List<OutboxTables> tables) {
		if (tables.isEmpty()) {
			throw new IllegalArgumentException("tables must not be empty");
		}
		// Its own auto-committed statement, whatever the pool's auto-commit and the caller's transaction;
		// prepared, so that the driver keeps it planned on each connection: planning a statement over
		// hundreds of schemas costs many times what running it does.
		this.jdbc = new JdbcTemplate(new AutoCommitDataSource(Objects.requireNonNull(dataSource, "dataSource must not be null")));
		this.tables = List.copyOf(tables);
		List<String> branches = new ArrayList<>(tables.size());
		for (int i = 0; i < tables.size(); i++) {
			// The first entry of the ready index: whether one is due, and since when.
			branches.add("SELECT " + i + " AS i, (SELECT min(next_attempt_at) FROM " + tables.get(i).qualifiedOutboxState()
					+ " WHERE status = 'pending' AND NOT ordering_held AND next_attempt_at <= now()) AS due_since");
		}
		this.sql = "SELECT i, due_since FROM (" + String.join(" UNION ALL ", branches) + ") d WHERE due_since IS NOT NULL";
		List<String> backlogs = new ArrayList<>(tables.size());
		for (int i = 0; i < tables.size(); i++) {
			backlogs.add("SELECT " + i + ", b.* FROM (" + OutboxSql.stats(tables.get(i)) + ") b");
		}
		this.backlogs = String.join(" UNION ALL ", backlogs);
	}

	/**
	 * Returns the table sets with a scope due now, each with when its oldest due scope fell due.
	 * @return those of the sets given at creation
	 * @throws org.springframework.dao.DataAccessException when the database cannot answer
	 */
	public Map<OutboxTables, Instant> due() {
		Map<OutboxTables, Instant> due = new HashMap<>();
		this.jdbc.query(this.sql, (PreparedStatementSetter) null, (RowCallbackHandler) (row) -> {
			due.put(this.tables.get(row.getInt(1)), row.getTimestamp(2).toInstant());
		});
		return due;
	}

	/**
	 * Returns the backlog of each table set.
	 * @return the figures of every set given at creation
	 * @throws org.springframework.dao.DataAccessException when the database cannot answer
	 */
	public Map<OutboxTables, OutboxStats> backlogs() {
		Map<OutboxTables, OutboxStats> read = new HashMap<>();
		this.jdbc.query(this.backlogs, (PreparedStatementSetter) null, (RowCallbackHandler) (row) -> {
			read.put(this.tables.get(row.getInt(1)), OperatorStatements.stats(row, 2));
		});
		return read;
	}

}
