package dev.waybill.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.test.Backends;
import dev.waybill.outbox.test.FaultyDataSource;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.replay.internal.JdbcReplays;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.test.TestRetention;

/**
 * Replay jobs under injected faults. The replayed copies are the messages of pending
 * scopes (no relay runs); the originals are published. Message ids are kept, so "each once"
 * means the pending messages' ids are exactly the originals' ids, without duplicates.
 */
class ReplayFaultIntegrationTests {

	private TestSchema schema;

	private final List<AutoCloseable> resources = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("replayfault");
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
	void aCommitFailureMidJobRepeatsAndSkipsNoMessage() {
		Set<String> originals = originalsHalfArchived(100);
		FaultyDataSource db = new FaultyDataSource(pool("commitfail"));
		JdbcReplays replays = replays(db, false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(10, 0));
		db.failCommitAfter(3, FaultyDataSource.CommitFault.ROLLED_BACK);
		int failures = drain(replays);
		assertThat(failures).isOne();
		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());
	}

	@Test
	void jobsAreStartedPausedAndRunAlsoWhenThePoolDoesNotAutoCommit() {
		// spring.datasource.hikari.auto-commit=false: before, starting, pausing and cancelling wrote
		// on a connection nobody committed, rolled back when it went back to the pool; the job was
		// reported started and was not there.
		Set<String> originals = originalsHalfArchived(20);
		HikariDataSource manual = TestPostgres.get().manualCommitPool("replay-faults-manual-commit", 3);
		this.resources.add(manual);
		JdbcReplays replays = replays(manual, false);

		ReplayJob job = replays.start(ReplayRequest.all().paced(10, 0));
		assertThat(replays(this.schema.dataSource(), false).find(job.id())).as("seen by another connection")
			.hasValueSatisfying((seen) -> assertThat(seen.status()).isEqualTo(ReplayStatus.RUNNING));
		assertThat(replays.pause(job.id())).isTrue();
		assertThat(replays.runBatch()).as("a paused job is not run").isEqualTo(-1);
		assertThat(replays.resume(job.id())).isTrue();
		assertThat(drain(replays)).isZero();

		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());
	}

	@Test
	void aCommitThatSucceededButWasReportedFailedRepeatsNoBatch() {
		Set<String> originals = originalsHalfArchived(100);
		FaultyDataSource db = new FaultyDataSource(pool("ambiguous"));
		JdbcReplays replays = replays(db, false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(10, 0));
		db.failCommitAfter(3, FaultyDataSource.CommitFault.COMMITTED_BUT_REPORTED_FAILED);
		assertThat(drain(replays)).isOne();
		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());
	}

	@Test
	void aWorkerWhoseBackendIsTerminatedMidBatchResumesWithoutLossOrDuplicate() throws Exception {
		Set<String> originals = originalsHalfArchived(100);
		DataSource db = pool("terminated");
		JdbcReplays replays = replays(db, false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(10, 0));
		assertThat(replays.runBatch()).isEqualTo(10);
		try (Connection blocker = TestPostgres.get().connect()) {
			blocker.setAutoCommit(false);
			try (Statement statement = blocker.createStatement()) {
				statement.execute("LOCK TABLE " + archive() + " IN ACCESS EXCLUSIVE MODE");
			}
			CompletableFuture<Long> batch = CompletableFuture.supplyAsync(replays::runBatch);
			int pid = Backends.awaitBlocked(this.schema.dataSource(), "picked");
			Backends.terminate(pid);
			Throwable thrown = catchFuture(batch);
			assertThat(thrown).as("the batch failed with its backend").isNotNull();
			blocker.rollback();
		}
		drain(replays);
		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());
	}

	@Test
	void retentionArchivingConcurrentlyWithAReplayMovesNoMessageOutOfItsSight() throws Exception {
		Set<String> originals = originals(3000);
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables(), 7);
		retention.archive(new RetentionArchive(true, Duration.ofDays(90)));
		retention.unpaced();
		JdbcReplays replays = replays(pool("concurrent"), false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(13, 0));
		AtomicBoolean stop = new AtomicBoolean();
		CompletableFuture<Void> purging = CompletableFuture.runAsync(() -> {
			while (!stop.get()) {
				retention.runOnce(); // batches of 7 back to back until all archived
			}
		});
		long[] archivedAt = new long[3];
		for (int i = 0; i < 3; i++) {
			for (int b = 0; b < 40; b++) {
				replays.runBatch();
			}
			archivedAt[i] = count(archive());
		}
		drain(replays);
		stop.set(true);
		purging.get(30, TimeUnit.SECONDS);
		assertThat(archivedAt[1]).as("retention was moving messages while the replay ran").isBetween(1L, 2999L);
		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());
	}

	@Test
	void pauseAndCancelCalledWhileABatchIsInFlightTakeEffectAfterItAndLoseNothing() throws Exception {
		Set<String> originals = originalsHalfArchived(100);
		DataSource db = pool("pause");
		JdbcReplays replays = replays(db, false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(10, 0));
		assertThat(replays.runBatch()).isEqualTo(10);
		CompletableFuture<Boolean> paused;
		CompletableFuture<Long> batch;
		try (Connection blocker = TestPostgres.get().connect()) {
			blocker.setAutoCommit(false);
			try (Statement statement = blocker.createStatement()) {
				statement.execute("LOCK TABLE " + archive() + " IN ACCESS EXCLUSIVE MODE");
			}
			batch = CompletableFuture.supplyAsync(replays::runBatch);
			Backends.awaitBlocked(this.schema.dataSource(), "picked");
			paused = CompletableFuture.supplyAsync(() -> replays.pause(job.id()));
			Backends.awaitBlocked(this.schema.dataSource(), "SET status = $1, next_batch_at"); // behind the batch
			assertThat(paused).as("pause waits for the batch's row lock").isNotDone();
			blocker.rollback();
		}
		assertThat(batch.get(10, TimeUnit.SECONDS)).isEqualTo(10);
		assertThat(paused.get(10, TimeUnit.SECONDS)).isTrue();
		ReplayJob p = replays.find(job.id()).orElseThrow();
		assertThat(p.status()).isEqualTo(ReplayStatus.PAUSED);
		assertThat(p.replayed()).isEqualTo(20);
		assertThat(replays.runBatch()).isEqualTo(-1);
		assertThat(pendingMessageIds()).hasSize(20).doesNotHaveDuplicates();
		assertThat(replays.resume(job.id())).isTrue();
		drain(replays);
		assertExactlyOnce(originals, replays.find(job.id()).orElseThrow());

		// Cancel while a batch of a second job is in flight: the batch commits, nothing after it.
		this.schema.execute("DELETE FROM " + this.schema.tables().qualifiedOutboxState() + " WHERE status = 'pending'");
		ReplayJob second = replays.start(ReplayRequest.all().paced(10, 0));
		CompletableFuture<Boolean> cancelled;
		try (Connection blocker = TestPostgres.get().connect()) {
			blocker.setAutoCommit(false);
			try (Statement statement = blocker.createStatement()) {
				statement.execute("LOCK TABLE " + archive() + " IN ACCESS EXCLUSIVE MODE");
			}
			batch = CompletableFuture.supplyAsync(replays::runBatch);
			Backends.awaitBlocked(this.schema.dataSource(), "picked");
			cancelled = CompletableFuture.supplyAsync(() -> replays.cancel(second.id()));
			Backends.awaitBlocked(this.schema.dataSource(), "SET status = $1, next_batch_at"); // behind the batch
			blocker.rollback();
		}
		assertThat(batch.get(10, TimeUnit.SECONDS)).isEqualTo(10);
		assertThat(cancelled.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(replays.runBatch()).isEqualTo(-1);
		ReplayJob c = replays.find(second.id()).orElseThrow();
		assertThat(c.status()).isEqualTo(ReplayStatus.CANCELLED);
		assertThat(pendingMessageIds()).as("what the cancelled job wrote = its count").hasSize((int) c.replayed());
	}

	@Test
	void aWorkerStoppedMidJobAndAnotherStartedResumeAtTheCursor() {
		Set<String> originals = originalsHalfArchived(400);
		JdbcReplays first = replays(pool("first"), true);
		ReplayJob job = first.start(ReplayRequest.all().paced(10, 200)); // a batch every 50 ms
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> first.find(job.id()).orElseThrow().replayed() >= 60);
		first.stop();
		ReplayJob stopped = first.find(job.id()).orElseThrow();
		assertThat(stopped.status()).isEqualTo(ReplayStatus.RUNNING);
		assertThat(pendingMessageIds()).hasSize((int) stopped.replayed());
		JdbcReplays second = replays(pool("second"), true);
		Awaitility.await().atMost(Duration.ofSeconds(20))
			.until(() -> second.find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
		assertExactlyOnce(originals, second.find(job.id()).orElseThrow());
	}

	@Test
	void twoWorkersThroughATransactionPoolerRunOneJobAndReplayEachMessageOnce() {
		// Each transaction may run on another server connection: a batch's lock on its job holds
		// within that batch's transaction, which is all the workers rely on.
		Set<String> originals = originalsHalfArchived(400);
		TestPgBouncer pooler = TestPgBouncer.start(2);
		this.resources.add(pooler);
		JdbcReplays first = replays(pooledPool(pooler, "first"), true);
		JdbcReplays second = replays(pooledPool(pooler, "second"), true);
		ReplayJob job = first.start(ReplayRequest.all().paced(10, 0));
		Awaitility.await().atMost(Duration.ofSeconds(30))
			.until(() -> second.find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
		assertExactlyOnce(originals, first.find(job.id()).orElseThrow());
	}

	private HikariDataSource pooledPool(TestPgBouncer pooler, String name) {
		HikariDataSource dataSource = pooler.pool("replay-pooled-" + name, 2);
		this.resources.add(dataSource);
		return dataSource;
	}

	@Test
	void aScopePendingWhenTheJobIsCreatedIsReplayedWhenPublishedBeforeTheCursorReachesIt() {
		Set<String> originals = originals(10);
		publish(1); // pending at the job's creation
		JdbcReplays replays = replays(this.schema.dataSource(), false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(100, 0));
		// The relay publishes it after the job was created, before its first batch.
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET status = 'published', published_at = now() WHERE status = 'pending'");
		drain(replays);
		ReplayJob done = replays.find(job.id()).orElseThrow();
		assertThat(done.replayed()).as("README: published when its batch reads it, so selected").isEqualTo(11);
	}

	/**
	 * A multi-instance probe started a second job 3 s after a first, both to the original
	 * destination: its upper bound (the highest sequence number at its creation) took in the first
	 * job's copies, so it replayed them too and the originals went out a fourth time. A job never
	 * selects a copy written by any replay job, whether the copy is still retained or archived.
	 */
	@Test
	void aJobStartedAfterAnotherReplaysOnlyTheOriginalsNeverTheOtherJobsCopies() {
		Set<String> originals = originalsHalfArchived(100);
		JdbcReplays replays = replays(this.schema.dataSource(), false);
		ReplayJob first = replays.start(ReplayRequest.all().paced(10, 0));
		for (int i = 0; i < 3; i++) {
			assertThat(replays.runBatch()).isEqualTo(10);
		}
		// The relay publishes the first job's copies written so far; retention archives some of them.
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		String state = this.schema.tables().qualifiedOutboxState();
		jdbc.update("UPDATE " + state + " SET status = 'published', published_at = now() - interval '31 days' "
				+ "WHERE id = (SELECT min(id::text)::uuid FROM " + state + " WHERE status = 'pending')");
		jdbc.update("UPDATE " + state + " SET status = 'published', published_at = now() WHERE status = 'pending'");
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		retention.archive(new RetentionArchive(true, Duration.ofDays(90)));
		assertThat(retention.runOnce().outboxMessages()).as("the 50 retained originals and 10 copies archived")
			.isEqualTo(60);

		ReplayJob second = replays.start(ReplayRequest.all().paced(10, 0));
		assertThat(second.upperSequence()).as("the bound takes in the first job's copies").isGreaterThan(100);
		// Both jobs run at once until done; the first job's later copies stay pending.
		drain(replays);
		ReplayJob firstDone = replays.find(first.id()).orElseThrow();
		ReplayJob secondDone = replays.find(second.id()).orElseThrow();
		assertThat(firstDone.replayed()).isEqualTo(100);
		assertThat(secondDone.replayed()).as("the originals only, none of the first job's 30 copies").isEqualTo(100);
		List<String> secondCopies = jdbc.queryForList("SELECT message_id::text FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " WHERE headers ->> 'waybill-replay-job' = ?",
				String.class, second.id().toString());
		assertThat(secondCopies).doesNotHaveDuplicates();
		assertThat(new HashSet<>(secondCopies)).isEqualTo(originals);

		// A third job, after both completed: again the 100 originals, not the 200 copies.
		ReplayJob third = replays.start(ReplayRequest.all().paced(10, 0));
		drain(replays);
		assertThat(replays.find(third.id()).orElseThrow().replayed()).isEqualTo(100);
	}

	// --- helpers ---------------------------------------------------------------------------------

	private static Throwable catchFuture(CompletableFuture<?> future) {
		try {
			future.get(20, TimeUnit.SECONDS);
			return null;
		}
		catch (Exception ex) {
			return ex;
		}
	}

	/** Runs batches until no job is due, counting the ones that threw. */
	private static int drain(JdbcReplays replays) {
		int failures = 0;
		for (int i = 0; i < 10_000; i++) {
			try {
				if (replays.runBatch() < 0) {
					return failures;
				}
			}
			catch (RuntimeException ex) {
				failures++;
			}
		}
		throw new IllegalStateException("never done");
	}

	private void assertExactlyOnce(Set<String> originals, ReplayJob job) {
		List<String> copies = pendingMessageIds();
		assertThat(copies).as("no message replayed twice").doesNotHaveDuplicates();
		assertThat(new HashSet<>(copies)).as("every message replayed").isEqualTo(originals);
		assertThat(job.status()).isEqualTo(ReplayStatus.COMPLETED);
		assertThat(job.replayed()).isEqualTo(originals.size());
	}

	private List<String> pendingMessageIds() {
		return new JdbcTemplate(this.schema.dataSource()).queryForList("SELECT m.message_id::text FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " m JOIN " + this.schema.tables().qualifiedOutboxState()
				+ " s ON s.id = m.outbox_id WHERE s.status = 'pending' ORDER BY m.sequence_number", String.class);
	}

	/** Published originals, 31 days ago; the first half archived by the retention worker. */
	private Set<String> originalsHalfArchived(int messages) {
		Set<String> first = originals(messages / 2);
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		retention.archive(new RetentionArchive(true, Duration.ofDays(90)));
		assertThat(retention.runOnce().outboxMessages()).isEqualTo(messages / 2);
		Set<String> all = new HashSet<>(first);
		all.addAll(originals(messages - messages / 2));
		assertThat(count(archive())).isEqualTo(messages / 2);
		return all;
	}

	private Set<String> originals(int messages) {
		Set<String> ids = publish(messages);
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET status = 'published', published_at = now() - interval '31 days' WHERE status = 'pending'");
		return ids;
	}

	private Set<String> publish(int messages) {
		OutboxPublisher publisher = TestOutbox.builder(this.schema.dataSource(), this.schema.tables())
			.sourceHost("test")
			.build()
			.publisher();
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(this.schema.dataSource()));
		Set<String> ids = new HashSet<>();
		// One scope per message, so retention can split them across batches.
		for (int i = 0; i < messages; i++) {
			int n = i;
			transactions.executeWithoutResult((status) -> ids
				.add(publisher.send("orders", new ArchiveAndReplayIntegrationTests.Item(n, "order " + n)).toString()));
		}
		return ids;
	}

	private long count(String table) {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM " + table, Long.class);
	}

	private String archive() {
		return new AuxiliaryTables(this.schema.tables()).qualifiedArchive();
	}

	private JdbcReplays replays(DataSource db, boolean worker) {
		JdbcReplays replays = new JdbcReplays(db, this.schema.tables(), new DataSourceTransactionManager(db),
				new RelayWakeUp(), Duration.ofMillis(50));
		replays.setWorker(worker);
		replays.start();
		this.resources.add(replays::stop);
		return replays;
	}

	private HikariDataSource pool(String name) {
		HikariDataSource dataSource = TestPostgres.get().pool("replay-faults-" + name, 3);
		this.resources.add(dataSource);
		return dataSource;
	}

}
