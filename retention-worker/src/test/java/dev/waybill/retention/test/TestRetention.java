package dev.waybill.retention.test;

import javax.sql.DataSource;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.RetentionRunner;
import dev.waybill.retention.internal.RetentionPacing;
import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.internal.RetentionWorker;

/**
 * A retention worker built by hand and never scheduled, for tests of other modules that purge on
 * demand: on a given DataSource and tables, with the default settings unless told otherwise, the
 * archive off until {@link #archive(RetentionArchive)} turns it on.
 */
public final class TestRetention implements RetentionRunner {

	private final RetentionWorker worker;

	private TestRetention(RetentionWorker worker) {
		this.worker = worker;
	}

	/**
	 * Returns a worker with the default settings.
	 * @param dataSource the database that holds the tables
	 * @param tables the tables
	 * @return the worker
	 */
	public static TestRetention on(DataSource dataSource, OutboxTables tables) {
		return new TestRetention(
				new RetentionWorker(dataSource, tables, RetentionSettings.defaults(), RetentionListener.NONE));
	}

	/**
	 * Returns a worker whose batches purge at most {@code batchSize} rows.
	 * @param dataSource the database that holds the tables
	 * @param tables the tables
	 * @param batchSize the batch size
	 * @return the worker
	 */
	public static TestRetention on(DataSource dataSource, OutboxTables tables, int batchSize) {
		return new TestRetention(new RetentionWorker(dataSource, tables,
				RetentionSettings.defaults().withBatchSize(batchSize), RetentionListener.NONE));
	}

	/**
	 * Sets, from the next run on, whether purged messages are archived first and for how long.
	 * @param archive the archive settings
	 * @return this worker
	 */
	public TestRetention archive(RetentionArchive archive) {
		this.worker.setArchive(archive);
		return this;
	}

	/**
	 * Runs the batches of each run back to back, without pausing between them.
	 * @return this worker
	 */
	public TestRetention unpaced() {
		this.worker.setPacing(RetentionPacing.OFF);
		return this;
	}

	@Override
	public RetentionResult runOnce() {
		return this.worker.runOnce();
	}

}
