package dev.waybill.benchmarks;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.test.TestSchema;

/**
 * The WAL floor of an outbox: one table of 1 KiB bodies with a bigint primary key, each row
 * inserted in a transaction of its own and then deleted in batches, as the leanest outbox that
 * deletes what it published would. Autovacuum is off on it, like on Waybill's tables in the same
 * benchmark.
 */
final class FloorTable {

	private final JdbcTemplate jdbc;

	private final String table;

	FloorTable(TestSchema schema) {
		this.jdbc = new JdbcTemplate(schema.dataSource());
		this.table = schema.name() + ".message";
		this.jdbc.execute("CREATE TABLE " + this.table
				+ " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body bytea NOT NULL)");
		this.jdbc.execute(withoutAutovacuum(this.table));
	}

	/**
	 * The statement that turns autovacuum (and autoanalyze) off for one table.
	 * @param table the qualified table
	 * @return the statement
	 */
	static String withoutAutovacuum(String table) {
		return "ALTER TABLE " + table + " SET (autovacuum_enabled = false)";
	}

	/**
	 * Inserts {@code rows} rows, each in its own transaction (the pool's auto-commit).
	 */
	void insert(int rows, int threads) throws InterruptedException {
		Parallel.run(threads, rows,
				(seq) -> this.jdbc.update("INSERT INTO " + this.table + " (body) VALUES (?)", (Object) BenchOrder.json(seq)));
	}

	/**
	 * Deletes every row, oldest first, {@code batch} rows per transaction.
	 */
	void deleteInBatches(int batch) {
		String delete = "DELETE FROM " + this.table + " WHERE id IN (SELECT id FROM " + this.table + " ORDER BY id LIMIT "
				+ batch + ")";
		while (this.jdbc.update(delete) > 0) {
			// until the table is empty
		}
	}

	void truncate() {
		this.jdbc.execute("TRUNCATE " + this.table);
	}

}
