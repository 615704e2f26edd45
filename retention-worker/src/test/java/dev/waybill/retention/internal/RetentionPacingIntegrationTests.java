package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;

/**
 * The pacing on a real PostgreSQL: a paced run holds its rate, and batches slowed down by a lock
 * another session holds make it back off.
 */
class RetentionPacingIntegrationTests {

	private static final int BATCH = 200;

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_pacing");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		schema.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", "
				+ schema.tables().qualifiedOutboxMessage() + ", " + schema.tables().qualifiedInboxState());
	}

	@Test
	void aPacedRunHoldsItsRateWhereAnUnpacedOneRunsFlatOut() {
		eligibleScopes(3_000);
		Commits paced = new Commits();
		RetentionWorker worker = worker(paced);
		worker.setPacing(new RetentionPacing(true, 2_000, 2_000));

		assertThat(worker.runOnce().outboxStates()).isEqualTo(3_000);

		// 2,800 rows after the first batch's commit, at 2,000 rows/s: 1.4 s.
		assertThat(paced.rateAfterFirst()).isBetween(1_000.0, 2_100.0);

		eligibleScopes(3_000);
		Commits flat = new Commits();
		RetentionWorker unpaced = worker(flat);
		unpaced.setPacing(RetentionPacing.OFF);
		assertThat(unpaced.runOnce().outboxStates()).isEqualTo(3_000);
		// Batches of 200 take a few ms each (some tens on a busy shared machine).
		assertThat(flat.rateAfterFirst()).isGreaterThan(3_000);
	}

	@Test
	void batchesSlowedDownByAnotherSessionsLockMakeTheRunBackOff() {
		eligibleScopes(6_000);
		Commits commits = new Commits();
		RetentionWorker worker = worker(new RetentionListener() {

			@Override
			public void batchCommitted(RetentionResult batch, Duration duration) {
				commits.batchCommitted(batch, duration);
				int committed = commits.times.size();
				if (committed >= 5 && committed <= 7) {
					// The next batch's DELETE waits for this lock: three slow batches in a row.
					holdShareLockOnNextBatch(Duration.ofMillis(300));
				}
			}

		});
		worker.setPacing(new RetentionPacing(true, 5_000, 500));

		assertThat(worker.runOnce().outboxStates()).isEqualTo(6_000);

		assertThat(commits.durations.subList(5, 8)).allSatisfy((took) -> assertThat(took).isGreaterThan(Duration.ofMillis(250)));
		// The median of the last three batches is slow from the second slow batch to the first fast
		// one after them: three halvings, at most 5,000 / 8 = 625 rows/s (less if the machine's own
		// noise backed off before); the next fast batch raises it by a tenth, so the pause after
		// batch 9 is at least 200 / 688 s = 290 ms less that batch's time. Unpaced by the stalls,
		// the budget would give 200 rows 40 ms.
		assertThat(commits.gapMillis(9)).isGreaterThan(200);
	}

	@Test
	void anInterruptEndsThePacedRunAtItsNextPauseAndReleasesTheLock() throws Exception {
		eligibleScopes(2_000);
		CompletableFuture<Thread> running = new CompletableFuture<>();
		RetentionWorker worker = worker(new RetentionListener() {

			@Override
			public void batchCommitted(RetentionResult batch, Duration duration) {
				running.complete(Thread.currentThread());
			}

		});
		// 200 rows per 1 s: the whole backlog would take ten seconds.
		worker.setPacing(new RetentionPacing(true, 200, 200));
		CompletableFuture<RetentionResult> run = new CompletableFuture<>();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			run.complete(worker.runOnce());
			interrupted.complete(Thread.currentThread().isInterrupted());
		});
		thread.start();
		running.get(10, TimeUnit.SECONDS).interrupt();

		RetentionResult result = run.get(3, TimeUnit.SECONDS);
		assertThat(result.outboxStates()).isEqualTo(BATCH);
		assertThat(interrupted.get(3, TimeUnit.SECONDS)).isTrue();
		worker.setPacing(RetentionPacing.OFF);
		assertThat(worker.runOnce().outboxStates()).isEqualTo(2_000 - BATCH);
	}

	private static RetentionWorker worker(RetentionListener listener) {
		return new RetentionWorker(schema.dataSource(), schema.tables(),
				RetentionSettings.defaults().withBatchSize(BATCH), listener);
	}

	private static void eligibleScopes(int count) {
		OutboxTables tables = schema.tables();
		schema.execute("INSERT INTO " + tables.qualifiedOutboxState() + " (id, status, published_at, message_count) "
				+ "SELECT gen_random_uuid(), 'published', now() - interval '31 days', 1 FROM generate_series(1, " + count
				+ ")");
		schema.execute("ANALYZE " + tables.qualifiedOutboxState());
	}

	/**
	 * Takes a SHARE lock on the scope table (it blocks deletes) and releases it {@code held} after
	 * the next batch started waiting for it, however long the pacer pauses before that batch.
	 */
	private static void holdShareLockOnNextBatch(Duration held) {
		String table = schema.tables().qualifiedOutboxState();
		CompletableFuture<Void> locked = new CompletableFuture<>();
		CompletableFuture.runAsync(() -> {
			try (Connection connection = schema.dataSource().getConnection()) {
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LOCK TABLE " + table + " IN SHARE MODE");
					locked.complete(null);
					long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
					while (!waiting(statement, table) && System.nanoTime() < deadline) {
						Thread.sleep(5);
					}
					Thread.sleep(held.toMillis());
				}
				connection.rollback();
			}
			catch (Exception ex) {
				locked.completeExceptionally(ex);
			}
		});
		locked.orTimeout(10, TimeUnit.SECONDS).join();
	}

	private static boolean waiting(Statement statement, String table) throws Exception {
		try (ResultSet result = statement.executeQuery(
				"SELECT count(*) FROM pg_locks WHERE relation = '" + table + "'::regclass AND NOT granted")) {
			result.next();
			return result.getLong(1) > 0;
		}
	}

	/** When each batch committed (after its commit, as the listener hears it) and how long it took. */
	private static class Commits implements RetentionListener {

		final List<Long> times = new CopyOnWriteArrayList<>();

		final List<Duration> durations = new CopyOnWriteArrayList<>();

		@Override
		public void batchCommitted(RetentionResult batch, Duration duration) {
			this.times.add(System.nanoTime());
			this.durations.add(duration);
		}

		/** Rows per second from the first commit to the last (full batches of {@link #BATCH}). */
		double rateAfterFirst() {
			long nanos = this.times.get(this.times.size() - 1) - this.times.get(0);
			return (this.times.size() - 1) * BATCH / (nanos / 1e9);
		}

		/** Milliseconds from batch {@code index}'s commit to the next one's (0-based). */
		long gapMillis(int index) {
			return (this.times.get(index + 1) - this.times.get(index)) / 1_000_000;
		}

	}

}
