package dev.waybill.benchmarks;

/**
 * What the database did between two readings of a {@link WorkMeter}: WAL written (cluster-wide),
 * transactions committed (in the database, by every session) and row changes in the measured
 * schema's tables.
 *
 * @param walBytes WAL bytes, {@code pg_wal_lsn_diff} of the two insert positions
 * @param commits {@code pg_stat_database.xact_commit} delta
 * @param inserted {@code n_tup_ins} delta, summed over the schema's tables
 * @param updated {@code n_tup_upd} delta, HOT updates included
 * @param hotUpdated {@code n_tup_hot_upd} delta
 * @param deleted {@code n_tup_del} delta
 * @param indexEntries an upper bound of the index entries written: each table's inserted and
 * non-HOT updated rows times its number of indexes (a partial index counts as if it took every row)
 * @param deadTuples the change in {@code n_dead_tup}, summed over the schema's tables: dead row
 * versions the window left for vacuum (with autovacuum off on them, less only what page pruning
 * removed)
 */
record DatabaseWork(long walBytes, long commits, long inserted, long updated, long hotUpdated, long deleted,
		long indexEntries, long deadTuples) {

	/**
	 * Adds the work of another window, e.g. the relay's to the write path's.
	 * @param other the other window
	 * @return the sum
	 */
	DatabaseWork plus(DatabaseWork other) {
		return new DatabaseWork(this.walBytes + other.walBytes, this.commits + other.commits,
				this.inserted + other.inserted, this.updated + other.updated, this.hotUpdated + other.hotUpdated,
				this.deleted + other.deleted, this.indexEntries + other.indexEntries, this.deadTuples + other.deadTuples);
	}

	/**
	 * Row versions written or removed: inserted + updated + deleted.
	 * @return the count
	 */
	long rowChanges() {
		return this.inserted + this.updated + this.deleted;
	}

	/**
	 * Describes the work per message, for progress lines.
	 * @param messages the messages it was for
	 * @return e.g. {@code 2,210 WAL bytes, 1.30 commits, rows ins 2.00 upd 1.00 (HOT 0.00) del 0.00, ...}
	 */
	String perMessage(long messages) {
		return ResultTable.number((double) this.walBytes / messages) + " WAL bytes, "
				+ ResultTable.number((double) this.commits / messages) + " commits, rows ins "
				+ ResultTable.number((double) this.inserted / messages) + " upd "
				+ ResultTable.number((double) this.updated / messages) + " (HOT "
				+ ResultTable.number((double) this.hotUpdated / messages) + ") del "
				+ ResultTable.number((double) this.deleted / messages) + ", index entries <= "
				+ ResultTable.number((double) this.indexEntries / messages) + ", dead rows left "
				+ ResultTable.number((double) this.deadTuples / messages) + " per message";
	}

}
