package dev.waybill.outbox.internal.jdbc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.OutboxTables;

/**
 * Tells, in one statement, which of several table sets of one database have a scope due: what a
 * claim would look for first (pending, due, not held back behind its key), read through each
 * set's ready index. One round trip in place of a claim per set.
 *
 * @since 0.1
 */
public final class DueProbe {

	private final JdbcTemplate jdbc;

	private final List<OutboxTables> tables;

	private final String sql;

	/**
	 * Creates the probe.
	 * @param dataSource the database
	 * @param tables the table sets in it, at least one
	 */
	public DueProbe(DataSource dataSource, List<OutboxTables> tables) {
		if (tables.isEmpty()) {
			throw new IllegalArgumentException("tables must not be empty");
		}
		// Its own auto-committed statement, whatever the pool's auto-commit and the caller's transaction.
		this.jdbc = new JdbcTemplate(new AutoCommitDataSource(Objects.requireNonNull(dataSource, "dataSource must not be null")));
		this.tables = List.copyOf(tables);
		List<String> branches = new ArrayList<>(tables.size());
		for (int i = 0; i < tables.size(); i++) {
			branches.add("SELECT " + i + " WHERE EXISTS (SELECT 1 FROM " + tables.get(i).qualifiedOutboxState()
					+ " WHERE status = 'pending' AND next_attempt_at <= now() AND NOT ordering_held)");
		}
		this.sql = String.join(" UNION ALL ", branches);
	}

	/**
	 * Returns the table sets with a scope due now.
	 * @return those of the sets given at creation
	 * @throws org.springframework.dao.DataAccessException when the database cannot answer
	 */
	public Set<OutboxTables> due() {
		Set<OutboxTables> due = new HashSet<>();
		for (Integer index : this.jdbc.queryForList(this.sql, Integer.class)) {
			due.add(this.tables.get(index));
		}
		return due;
	}

}
