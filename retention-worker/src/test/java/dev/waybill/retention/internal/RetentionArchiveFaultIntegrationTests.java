package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.outbox.test.Backends;
import dev.waybill.outbox.test.FaultyDataSource;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WireFaultProxy;
import dev.waybill.outbox.test.WireFaultProxy.Fault;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.RetentionRows;

/**
 * The archiving purge under injected faults. Invariant checked after every fault: each
 * original message (by sequence number) is in exactly one of the outbox and the archive, and
 * the next run finishes the job by itself.
 */
class RetentionArchiveFaultIntegrationTests {

	private static final int SCOPES = 50;

	private TestSchema schema;

	private RetentionRows rows;

	private Set<Long> originals;

	private final List<AutoCloseable> resources = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("retfault");
		this.rows = new RetentionRows(this.schema);
		for (int i = 0; i < SCOPES; i++) {
			this.rows.published((31 + i) + " days");
		}
		this.originals = new HashSet<>(sequences(this.schema.tables().qualifiedOutboxMessage()));
		assertThat(this.originals).hasSize(SCOPES);
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.schema.close();
	}

	@Test
	void aCommitFailureMidRunLosesAndDuplicatesNothingAndTheNextRunFinishes() {
		FaultyDataSource db = new FaultyDataSource(pool("commitfail"));
		RetentionWorker worker = worker(db);
		db.failCommitAfter(2, FaultyDataSource.CommitFault.ROLLED_BACK);
		Throwable thrown = catchThrowable(worker::runOnce);
		assertThat(thrown).isInstanceOf(IllegalStateException.class);
		assertThat(count(archive())).as("two batches of 10 committed").isEqualTo(20);
		assertEachInExactlyOneTable();
		assertThat(worker(pool("other")).runOnce().skipped()).as("the run lock was released").isFalse();
		assertEachInExactlyOneTable();
		assertThat(count(archive())).isEqualTo(SCOPES);
	}

	@Test
	void aCommitThatSucceededButWasReportedFailedArchivesNothingTwice() {
		FaultyDataSource db = new FaultyDataSource(pool("ambiguous"));
		RetentionWorker worker = worker(db);
		db.failCommitAfter(2, FaultyDataSource.CommitFault.COMMITTED_BUT_REPORTED_FAILED);
		assertThat(catchThrowable(worker::runOnce)).isInstanceOf(IllegalStateException.class);
		assertThat(count(archive())).isEqualTo(30);
		assertEachInExactlyOneTable();
		RetentionResult next = worker.runOnce();
		assertThat(next.skipped()).isFalse();
		assertThat(count(archive())).isEqualTo(SCOPES);
		assertEachInExactlyOneTable();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aBatchWhoseCommitAnswerIsLostOnTheWireArchivesNothingTwiceAndTheNextRunFinishes(Fault fault) {
		WireFaultProxy proxy = WireFaultProxy.postgres();
		this.resources.add(proxy);
		HikariDataSource pool = proxy.pool();
		this.resources.add(pool);
		RetentionWorker worker = worker(pool);
		proxy.loseCommitReply((sql) -> sql.contains("DELETE FROM"), fault);
		assertThat(catchThrowable(worker::runOnce)).isNotNull();
		assertThat(proxy.fired()).isOne();
		assertThat(count(archive())).as("the first batch committed").isEqualTo(10);
		assertEachInExactlyOneTable();
		RetentionResult next = worker.runOnce();
		assertThat(next.skipped()).as("the run lock went with the lost connection").isFalse();
		assertThat(count(archive())).isEqualTo(SCOPES);
		assertEachInExactlyOneTable();
	}

	@Test
	void aBackendTerminatedMidBatchLeavesEveryMessageInOneTableAndReleasesTheRunLock() throws Exception {
		RetentionWorker worker = worker(pool("terminated"));
		CompletableFuture<RetentionResult> run;
		try (Connection blocker = TestPostgres.get().connect()) {
			blocker.setAutoCommit(false);
			try (Statement statement = blocker.createStatement()) {
				statement.execute("LOCK TABLE " + archive() + " IN ACCESS EXCLUSIVE MODE");
			}
			run = CompletableFuture.supplyAsync(worker::runOnce);
			int pid = Backends.awaitBlocked(this.schema.dataSource(), "archived AS");
			Backends.terminate(pid);
			Throwable thrown = catchThrowable(() -> run.get(20, TimeUnit.SECONDS));
			assertThat(thrown).isNotNull();
			blocker.rollback();
		}
		assertEachInExactlyOneTable();
		assertThat(count(archive())).isZero();
		RetentionResult next = worker.runOnce();
		assertThat(next.skipped()).as("the dead session's run lock is gone").isFalse();
		assertThat(count(archive())).isEqualTo(SCOPES);
		assertEachInExactlyOneTable();
	}

	@Test
	void aMessageRowLockedBeyondTheLockTimeoutFailsTheBatchCleanlyAndTheNextRunRecovers() throws Exception {
		RetentionWorker worker = worker(pool("locked"));
		try (Connection blocker = TestPostgres.get().connect()) {
			blocker.setAutoCommit(false);
			try (Statement statement = blocker.createStatement()) {
				// Someone (a console, an operator) holds the oldest scope's message: the cascade waits on it.
				statement.execute("SELECT 1 FROM " + this.schema.tables().qualifiedOutboxMessage() + " m JOIN "
						+ this.schema.tables().qualifiedOutboxState() + " s ON s.id = m.outbox_id "
						+ "ORDER BY s.published_at LIMIT 1 FOR UPDATE OF m");
			}
			Throwable thrown = catchThrowable(worker::runOnce);
			assertThat(thrown).isInstanceOf(IllegalStateException.class);
			assertEachInExactlyOneTable();
			blocker.rollback();
		}
		assertThat(worker.runOnce().skipped()).isFalse();
		assertThat(count(archive())).isEqualTo(SCOPES);
		assertEachInExactlyOneTable();
	}

	@Test
	void twoWorkersOnTwoHostsRacingArchiveEachMessageOnce() throws Exception {
		for (int i = 0; i < 1950; i++) {
			this.rows.published("40 days");
		}
		Set<Long> all = new HashSet<>(sequences(this.schema.tables().qualifiedOutboxMessage()));
		RetentionWorker a = worker(pool("ops-1"), 20);
		RetentionWorker b = worker(pool("ops-2"), 20);
		ConcurrentLinkedQueue<Object> outcomes = new ConcurrentLinkedQueue<>();
		AtomicBoolean stop = new AtomicBoolean();
		CompletableFuture<Void> one = CompletableFuture.runAsync(() -> {
			while (!stop.get()) {
				try {
					outcomes.add(a.runOnce().skipped() ? "skipped" : "ran");
				}
				catch (RuntimeException ex) {
					outcomes.add(ex);
				}
			}
		});
		CompletableFuture<Void> two = CompletableFuture.runAsync(() -> {
			while (!stop.get()) {
				try {
					outcomes.add(b.runOnce().skipped() ? "skipped" : "ran");
				}
				catch (RuntimeException ex) {
					outcomes.add(ex);
				}
			}
		});
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count(archive()) == all.size());
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.contains("skipped"));
		stop.set(true);
		one.get(10, TimeUnit.SECONDS);
		two.get(10, TimeUnit.SECONDS);
		assertThat(outcomes).as("no run failed").allMatch((o) -> o instanceof String);
		assertThat(outcomes).as("the two raced").contains("skipped");
		assertThat(sequences(archive())).hasSize(all.size()).doesNotHaveDuplicates();
		assertThat(new HashSet<>(sequences(archive()))).isEqualTo(all);
		assertThat(count(this.schema.tables().qualifiedOutboxMessage())).isZero();
	}

	@Test
	void aWorkerStoppedMidRunLeavesEveryMessageInOneTableAndAnotherFinishes() {
		RetentionSettings settings = new RetentionSettings(Duration.ofMillis(50), 5, true, Duration.ofDays(30), false,
				Duration.ofDays(90), null, Duration.ZERO);
		RetentionWorker worker = new RetentionWorker(pool("stopped"), this.schema.tables(), settings, RetentionListener.NONE);
		worker.setArchive(new RetentionArchive(true, Duration.ofDays(90)));
		worker.setPacing(new RetentionPacing(true, 20, 1)); // 5 rows per batch at 20/s: a 250 ms pause after each
		worker.start();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(archive()) >= 15);
		worker.stop();
		long archived = count(archive());
		assertThat(archived).as("stopped part-way").isLessThan(SCOPES);
		assertEachInExactlyOneTable();
		RetentionWorker other = worker(pool("other"));
		assertThat(other.runOnce().skipped()).isFalse();
		assertThat(count(archive())).isEqualTo(SCOPES);
		assertEachInExactlyOneTable();
	}

	/**
	 * Not reachable through Waybill itself (a batch archives and deletes in one statement): an
	 * archive row that already holds the sequence number of a retained message (e.g. the outbox
	 * restored from a backup taken before a purge). Does retention get past it?
	 */

	// --- helpers ---------------------------------------------------------------------------------

	private void assertEachInExactlyOneTable() {
		List<Long> archived = sequences(archive());
		List<Long> retained = sequences(this.schema.tables().qualifiedOutboxMessage());
		assertThat(archived).as("archived once").doesNotHaveDuplicates();
		Set<Long> both = new HashSet<>(retained);
		both.retainAll(archived);
		assertThat(both).as("in both tables").isEmpty();
		Set<Long> union = new HashSet<>(archived);
		union.addAll(retained);
		assertThat(union).as("lost: neither archived nor retained").containsAll(this.originals);
	}

	private RetentionWorker worker(DataSource db) {
		return worker(db, 10);
	}

	private RetentionWorker worker(DataSource db, int batchSize) {
		RetentionWorker worker = new RetentionWorker(db, this.schema.tables(),
				RetentionSettings.defaults().withBatchSize(batchSize), RetentionListener.NONE);
		worker.setArchive(new RetentionArchive(true, Duration.ofDays(90)));
		worker.setPacing(RetentionPacing.OFF);
		this.resources.add(worker::stop);
		return worker;
	}

	private List<Long> sequences(String table) {
		return new JdbcTemplate(this.schema.dataSource()).queryForList("SELECT sequence_number FROM " + table, Long.class);
	}

	private long count(String table) {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM " + table, Long.class);
	}

	private String archive() {
		return new AuxiliaryTables(this.schema.tables()).qualifiedArchive();
	}

	private HikariDataSource pool(String name) {
		HikariDataSource dataSource = TestPostgres.get().pool("retention-faults-" + name, 3);
		this.resources.add(dataSource);
		return dataSource;
	}

}
