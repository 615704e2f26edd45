package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.RetentionRows;

/**
 * The purge on a real PostgreSQL: eligibility, batches, skipped locks and the run lock.
 */
class RetentionWorkerIntegrationTests {

	private static TestSchema schema;

	private static RetentionRows rows;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_worker");
		rows = new RetentionRows(schema);
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

	private static RetentionWorker worker(RetentionSettings settings) {
		return worker(settings, RetentionListener.NONE);
	}

	private static RetentionWorker worker(RetentionSettings settings, RetentionListener listener) {
		return new RetentionWorker(schema.dataSource(), schema.tables(), settings, listener);
	}

	@Test
	void scenario1PublishedScopeWithoutInboxRowIsPurgedWithItsMessagesOnceOldEnough() {
		UUID old = rows.published("31 days");
		UUID young = rows.published("29 days");
		RetentionResult result = worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.scopeExists(old)).isFalse();
		assertThat(rows.messagesOf(old)).isZero();
		assertThat(rows.scopeExists(young)).isTrue();
		assertThat(rows.messagesOf(young)).isOne();
		assertThat(result).isEqualTo(new RetentionResult(false, 1, 1, 1, 0));
	}

	@Test
	void expiredAndCancelledScopesArePurgedLikeCompletedOnesOnceOldEnough() {
		UUID oldExpired = rows.finished("expired", "31 days", null, null);
		UUID oldCancelled = rows.finished("cancelled", "31 days", null, null);
		UUID youngExpired = rows.finished("expired", "29 days", null, null);
		UUID youngCancelled = rows.finished("cancelled", "29 days", null, null);
		// A consumer's cancelled send goes too, although its inbox row is still unprocessed: it will
		// never be delivered, so nothing waits for it.
		UUID inbound = rows.retrying("1 day", "billing");
		UUID consumerCancelled = rows.finished("cancelled", "31 days", inbound, "billing");

		RetentionResult result = worker(RetentionSettings.defaults()).runOnce();

		for (UUID gone : List.of(oldExpired, oldCancelled, consumerCancelled)) {
			assertThat(rows.scopeExists(gone)).as("scope %s", gone).isFalse();
			assertThat(rows.messagesOf(gone)).isZero();
		}
		assertThat(rows.scopeExists(youngExpired)).isTrue();
		assertThat(rows.scopeExists(youngCancelled)).isTrue();
		assertThat(rows.inboxExists(inbound)).as("the unprocessed inbox row stays").isTrue();
		assertThat(result).isEqualTo(new RetentionResult(false, 1, 3, 3, 0));
	}

	@Test
	void scenario2PublishedScopeAndItsProcessedInboxRowArePurgedTogetherOnceOldEnough() {
		UUID oldInbound = rows.processed("31 days", "billing");
		UUID oldScope = rows.consumerScope("31 days", oldInbound, "billing");
		UUID youngInbound = rows.processed("2 days", "billing");
		UUID youngScope = rows.consumerScope("2 days", youngInbound, "billing");
		RetentionResult result = worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.scopeExists(oldScope)).isFalse();
		assertThat(rows.inboxExists(oldInbound)).isFalse();
		assertThat(rows.scopeExists(youngScope)).isTrue();
		assertThat(rows.inboxExists(youngInbound)).isTrue();
		assertThat(result).isEqualTo(new RetentionResult(false, 1, 1, 1, 1));
	}

	@Test
	void consumerScopeStaysWhileItsInboxRowIsUnprocessed() {
		UUID inbound = rows.faulted("1 day");
		UUID scope = rows.consumerScope("31 days", inbound, "consumer");
		worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.scopeExists(scope)).isTrue();
		assertThat(rows.inboxExists(inbound)).isTrue();
	}

	@Test
	void scenario3ProcessedInboxRowWithoutScopeIsPurgedOnceOldEnough() {
		UUID old = rows.processed("31 days", "billing");
		UUID young = rows.processed("29 days", "billing");
		RetentionResult result = worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.inboxExists(old)).isFalse();
		assertThat(rows.inboxExists(young)).isTrue();
		assertThat(result).isEqualTo(new RetentionResult(false, 1, 0, 0, 1));
	}

	@Test
	void processedInboxRowStaysWhileAScopeOfItRemains() {
		UUID inbound = rows.processed("31 days", "billing");
		UUID scope = rows.consumerScope("2 days", inbound, "billing");
		worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.inboxExists(inbound)).isTrue();
		assertThat(rows.scopeExists(scope)).isTrue();
	}

	@Test
	void inboxRowInsideTheDuplicateDetectionWindowIsNeverPurged() {
		RetentionSettings settings = new RetentionSettings(Duration.ofSeconds(15), 1000, true, Duration.ofMinutes(10),
				false, Duration.ofDays(90), null, Duration.ofHours(1));
		UUID scope = rows.published("30 minutes");
		UUID inbox = rows.processed("30 minutes", "billing");
		UUID outsideWindow = rows.processed("2 hours", "billing");
		worker(settings).runOnce();
		assertThat(rows.scopeExists(scope)).isFalse();
		assertThat(rows.inboxExists(inbox)).isTrue();
		assertThat(rows.inboxExists(outsideWindow)).isFalse();
	}

	@Test
	void incompleteRowsAreKeptByDefaultAndPurgedWhenTheFlagIsOn() {
		UUID dead = rows.dead("91 days");
		UUID youngDead = rows.dead("89 days");
		UUID faulted = rows.faulted("91 days");
		UUID youngFaulted = rows.faulted("89 days");
		worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.scopeExists(dead)).isTrue();
		assertThat(rows.inboxExists(faulted)).isTrue();
		RetentionResult result = worker(RetentionSettings.defaults().withIncomplete(true, null)).runOnce();
		assertThat(rows.scopeExists(dead)).isFalse();
		assertThat(rows.messagesOf(dead)).isZero();
		assertThat(rows.inboxExists(faulted)).isFalse();
		assertThat(rows.scopeExists(youngDead)).isTrue();
		assertThat(rows.inboxExists(youngFaulted)).isTrue();
		assertThat(result).isEqualTo(new RetentionResult(false, 1, 1, 1, 1));
	}

	/**
	 * Writes one of every kind of row a service ends up with, all long past every retention age,
	 * and returns the incomplete ones: those only the incomplete purge may delete.
	 */
	private static List<UUID> everyKindOfRow() {
		// Processed at once: the inbox row and the scope of what the handler published.
		UUID processed = rows.processed("200 days", "billing");
		rows.consumerScope("200 days", processed, "billing");
		// A producer's published scope.
		rows.published("200 days");
		// Delivered twice: the duplicate only counted on the processed row.
		UUID duplicate = rows.processed("200 days", "billing");
		rows.jdbc().update("UPDATE " + schema.tables().qualifiedInboxState()
				+ " SET receive_count = 2 WHERE message_id = ?", duplicate);
		// Retried: the handler failed once, the redelivery went through its consumer scope, then it was processed.
		UUID retried = rows.processed("200 days", "billing");
		rows.jdbc().update("UPDATE " + schema.tables().qualifiedInboxState()
				+ " SET attempts = 1, last_error = 'boom' WHERE message_id = ?", retried);
		rows.consumerScope("200 days", retried, "billing");
		// Faulted: two redeliveries and the forward to the error queue, all published.
		UUID faulted = rows.faulted("200 days", "billing");
		UUID redelivery1 = rows.consumerScope("200 days", faulted, "billing");
		UUID redelivery2 = rows.consumerScope("200 days", faulted, "billing");
		UUID forward = rows.consumerScope("200 days", faulted, "billing");
		// Faulted, and its forward to the error queue died at the relay.
		UUID faultedDeadForward = rows.faulted("200 days", "billing");
		UUID deadForward = rows.deadConsumerScope("200 days", faultedDeadForward, "billing");
		// Dead: a producer scope the relay gave up on.
		UUID dead = rows.dead("200 days");
		// Pending far too long (kept unless purge-pending-after is set).
		UUID pending = rows.pending("400 days", "now() - interval '400 days'");
		// Abandoned between retries: one redelivery published, the next one died at the relay.
		UUID abandoned = rows.retrying("200 days", "billing");
		UUID abandonedRedelivery = rows.consumerScope("200 days", abandoned, "billing");
		UUID abandonedDeadRedelivery = rows.deadConsumerScope("200 days", abandoned, "billing");
		// Abandoned: its redelivery stuck pending far too long.
		UUID stuck = rows.retrying("400 days", "billing");
		UUID stuckRedelivery = rows.pendingConsumerScope("400 days", "now() - interval '400 days'", stuck, "billing");
		return List.of(faulted, redelivery1, redelivery2, forward, faultedDeadForward, deadForward, dead, pending,
				abandoned, abandonedRedelivery, abandonedDeadRedelivery, stuck, stuckRedelivery);
	}

	@Test
	void withBothPurgesOnEveryKindOfRowIsGoneOnceOldEnough() {
		everyKindOfRow();
		RetentionResult result = worker(RetentionSettings.defaults().withIncomplete(true, Duration.ofDays(180)))
			.runOnce();
		assertThat(rows.remaining()).as("outbox_state, outbox_message, inbox_state rows left").containsExactly(0, 0, 0);
		assertThat(result.outboxStates()).isEqualTo(12);
		assertThat(result.inboxStates()).isEqualTo(7);
	}

	@Test
	void withTheIncompletePurgeOffOnlyTheIncompleteRowsStay() {
		List<UUID> incomplete = everyKindOfRow();
		worker(RetentionSettings.defaults().withIncomplete(false, Duration.ofDays(180))).runOnce();
		for (int i : new int[] { 0, 4, 8, 11 }) {
			assertThat(rows.inboxExists(incomplete.get(i))).as("inbox row %s", incomplete.get(i)).isTrue();
		}
		for (int i : new int[] { 1, 2, 3, 5, 6, 7, 9, 10, 12 }) {
			assertThat(rows.scopeExists(incomplete.get(i))).as("scope %s", incomplete.get(i)).isTrue();
		}
		assertThat(rows.remaining()).containsExactly(9, 9, 4);
	}

	@Test
	void aRowStillRetryingStaysWhateverItsAge() {
		UUID retrying = rows.retrying("400 days", "billing");
		UUID published = rows.consumerScope("400 days", retrying, "billing");
		UUID due = rows.pendingConsumerScope("1 minute", "now() + interval '1 minute'", retrying, "billing");
		UUID young = rows.retrying("10 days", "billing");
		UUID youngDead = rows.deadConsumerScope("200 days", young, "billing");
		worker(RetentionSettings.defaults().withIncomplete(true, Duration.ofDays(180))).runOnce();
		assertThat(rows.inboxExists(retrying)).isTrue();
		assertThat(rows.scopeExists(published)).isTrue();
		assertThat(rows.scopeExists(due)).isTrue();
		assertThat(rows.inboxExists(young)).as("received inside incomplete-after").isTrue();
		assertThat(rows.scopeExists(youngDead)).as("dead for longer than incomplete-after").isFalse();
		// Once the redelivery is no longer pending, the old row and its scopes go.
		rows.jdbc().update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET status = 'dead' WHERE id = ?", due);
		worker(RetentionSettings.defaults().withIncomplete(true, Duration.ofDays(180))).runOnce();
		assertThat(rows.scopeExists(due)).as("dead only just now").isTrue();
		assertThat(rows.scopeExists(published)).isFalse();
	}

	@Test
	void faultedRowAndItsScopesStayInsideTheIncompleteAgeAndTheDuplicateDetectionWindow() {
		UUID young = rows.faulted("89 days", "billing");
		UUID youngForward = rows.consumerScope("200 days", young, "billing");
		// incomplete-after shorter than the window: the window keeps the row and so its scopes.
		RetentionSettings settings = new RetentionSettings(Duration.ofSeconds(15), 1000, true, Duration.ofDays(30),
				true, Duration.ofMinutes(1), null, Duration.ofHours(1));
		UUID inWindow = rows.faulted("30 minutes", "billing");
		UUID inWindowForward = rows.consumerScope("30 minutes", inWindow, "billing");
		worker(RetentionSettings.defaults().withIncomplete(true, null)).runOnce();
		assertThat(rows.inboxExists(young)).isTrue();
		assertThat(rows.scopeExists(youngForward)).isTrue();
		worker(settings).runOnce();
		assertThat(rows.inboxExists(inWindow)).isTrue();
		assertThat(rows.scopeExists(inWindowForward)).isTrue();
		assertThat(rows.inboxExists(young)).isFalse();
		assertThat(rows.scopeExists(youngForward)).isFalse();
	}

	@Test
	void pendingScopesAreNeverPurgedWithoutPurgePendingAfter() {
		UUID pending = rows.pending("400 days", "now() - interval '400 days'");
		worker(RetentionSettings.defaults()).runOnce();
		worker(RetentionSettings.defaults().withIncomplete(true, null)).runOnce();
		assertThat(rows.scopeExists(pending)).isTrue();
		worker(RetentionSettings.defaults().withIncomplete(false, Duration.ofDays(180))).runOnce();
		assertThat(rows.scopeExists(pending)).isTrue();
	}

	@Test
	void pendingScopesArePurgedWithPurgePendingAfterUnlessStillDueForAnAttempt() {
		UUID stale = rows.pending("400 days", "now() - interval '400 days'");
		UUID backingOff = rows.pending("400 days", "now() + interval '1 hour'");
		UUID young = rows.pending("100 days", "now() - interval '100 days'");
		worker(RetentionSettings.defaults().withIncomplete(true, Duration.ofDays(180))).runOnce();
		assertThat(rows.scopeExists(stale)).isFalse();
		assertThat(rows.scopeExists(backingOff)).isTrue();
		assertThat(rows.scopeExists(young)).isTrue();
	}

	@Test
	void noBatchExceedsTheBatchSize() {
		String log = schema.name() + ".purge_log";
		schema.execute("CREATE TABLE " + log + " (tbl text, txid bigint)");
		schema.execute("CREATE FUNCTION " + schema.name() + ".log_purge() RETURNS trigger LANGUAGE plpgsql AS $$ "
				+ "BEGIN INSERT INTO " + log + " VALUES (TG_TABLE_NAME, txid_current()); RETURN OLD; END $$");
		for (String table : List.of(schema.tables().qualifiedOutboxState(), schema.tables().qualifiedInboxState())) {
			schema.execute("CREATE TRIGGER log_purge AFTER DELETE ON " + table + " FOR EACH ROW EXECUTE FUNCTION "
					+ schema.name() + ".log_purge()");
		}
		try {
			int batchSize = 20;
			schema.execute("INSERT INTO " + schema.tables().qualifiedOutboxState() + " (id, status, published_at) "
					+ "SELECT gen_random_uuid(), 'published', now() - interval '31 days' FROM generate_series(1, "
					+ (10 * batchSize) + ")");
			schema.execute("INSERT INTO " + schema.tables().qualifiedInboxState() + " (message_id, consumer_id, "
					+ "processed_at) SELECT gen_random_uuid(), 'c', now() - interval '31 days' FROM generate_series(1, "
					+ (10 * batchSize) + ")");
			RetentionResult result = worker(RetentionSettings.defaults().withBatchSize(batchSize)).runOnce();
			assertThat(result.outboxStates()).isEqualTo(10 * batchSize);
			assertThat(result.inboxStates()).isEqualTo(10 * batchSize);
			assertThat(rows.count(schema.tables().qualifiedOutboxState())).isZero();
			assertThat(rows.count(schema.tables().qualifiedInboxState())).isZero();
			for (String table : List.of("outbox_state", "inbox_state")) {
				List<Map<String, Object>> transactions = rows.jdbc()
					.queryForList("SELECT txid, count(*) AS n FROM " + log + " WHERE tbl = ? GROUP BY txid", table);
				assertThat(transactions).as("transactions deleting from %s", table).hasSizeGreaterThanOrEqualTo(10);
				assertThat(transactions).allSatisfy((tx) -> assertThat((Long) tx.get("n")).isLessThanOrEqualTo(batchSize));
			}
		}
		finally {
			schema.execute("DROP TABLE " + log);
			schema.execute("DROP FUNCTION " + schema.name() + ".log_purge() CASCADE");
		}
	}

	@Test
	void rowsLockedByAnotherTransactionAreSkippedWithoutWaiting() throws Exception {
		UUID lockedScope = rows.published("31 days");
		UUID freeScope = rows.published("31 days");
		UUID lockedInbox = rows.processed("31 days", "billing");
		UUID freeInbox = rows.processed("31 days", "billing");
		try (Connection holder = TestPostgres.get().connect()) {
			holder.setAutoCommit(false);
			lock(holder, "SELECT 1 FROM " + schema.tables().qualifiedOutboxState() + " WHERE id = ? FOR UPDATE", lockedScope);
			lock(holder, "SELECT 1 FROM " + schema.tables().qualifiedInboxState() + " WHERE message_id = ? FOR UPDATE",
					lockedInbox);
			RetentionWorker worker = worker(RetentionSettings.defaults());
			// Bounded: a purge that waited on the held locks would never finish while they are held.
			RetentionResult result = CompletableFuture.supplyAsync(worker::runOnce).get(30, TimeUnit.SECONDS);
			assertThat(result.outboxStates()).isOne();
			assertThat(result.inboxStates()).isOne();
			assertThat(rows.scopeExists(freeScope)).isFalse();
			assertThat(rows.inboxExists(freeInbox)).isFalse();
			assertThat(rows.scopeExists(lockedScope)).isTrue();
			assertThat(rows.inboxExists(lockedInbox)).isTrue();
			holder.rollback();
		}
		worker(RetentionSettings.defaults()).runOnce();
		assertThat(rows.scopeExists(lockedScope)).isFalse();
		assertThat(rows.inboxExists(lockedInbox)).isFalse();
	}

	private static void lock(Connection connection, String sql, UUID id) throws Exception {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setObject(1, id);
			statement.executeQuery().close();
		}
	}

	@Test
	void ofTwoWorkersStartedAtOnceOnePurgesAndTheOtherSkipsThatRun() throws Exception {
		oneOfTwoWorkersPurges(schema.dataSource());
	}

	@Test
	void throughATransactionModePoolerTwoWorkersNeverHoldTheLockAtOnce() throws Exception {
		// The pooler hands each transaction whichever server session is free: a session lock taken
		// through it stayed with a server session, and the next worker to be given it took it again.
		try (TestPgBouncer pooler = TestPgBouncer.start(2); HikariDataSource pooled = pooler.pool("retention-pooled", 4)) {
			for (int i = 0; i < 3; i++) {
				emptyTables();
				oneOfTwoWorkersPurges(pooled);
			}
		}
	}

	private static void oneOfTwoWorkersPurges(DataSource dataSource) throws Exception {
		schema.execute("INSERT INTO " + schema.tables().qualifiedOutboxState() + " (id, status, published_at) "
				+ "SELECT gen_random_uuid(), 'published', now() - interval '31 days' FROM generate_series(1, 30)");
		CountDownLatch firstBatchDone = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		RetentionWorker first = new RetentionWorker(dataSource, schema.tables(),
				RetentionSettings.defaults().withBatchSize(10), awaiting(firstBatchDone, release));
		RetentionWorker second = new RetentionWorker(dataSource, schema.tables(),
				RetentionSettings.defaults().withBatchSize(10), RetentionListener.NONE);
		CompletableFuture<RetentionResult> firstRun = CompletableFuture.supplyAsync(first::runOnce);
		assertThat(firstBatchDone.await(30, TimeUnit.SECONDS)).isTrue();
		RetentionResult secondRun = second.runOnce();
		release.countDown();
		assertThat(secondRun).isEqualTo(RetentionResult.SKIPPED);
		assertThat(firstRun.get(30, TimeUnit.SECONDS).outboxStates()).isEqualTo(30);
		// The lock went with the first run: the second worker's next run goes ahead.
		assertThat(second.runOnce()).isEqualTo(RetentionResult.NOTHING.plus(new RetentionResult(false, 1, 0, 0, 0)));
	}

	@Test
	void aRunWhoseLockWentWithItsConnectionStopsAfterItsBatch() throws Exception {
		schema.execute("INSERT INTO " + schema.tables().qualifiedOutboxState() + " (id, status, published_at) "
				+ "SELECT gen_random_uuid(), 'published', now() - interval '31 days' FROM generate_series(1, 30)");
		CountDownLatch firstBatchDone = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		RetentionWorker first = worker(RetentionSettings.defaults().withBatchSize(10), awaiting(firstBatchDone, release));
		CompletableFuture<RetentionResult> firstRun = CompletableFuture.supplyAsync(first::runOnce);
		assertThat(firstBatchDone.await(30, TimeUnit.SECONDS)).isTrue();
		// The holder of the lock: the one session of the database holding an advisory lock.
		assertThat(new JdbcTemplate(schema.dataSource()).queryForObject(
				"SELECT count(pg_terminate_backend(l.pid)) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 1 "
						+ "AND ((l.classid::int8 << 32) | l.objid::int8) = ? AND l.pid <> pg_backend_pid()", Integer.class, RetentionSql.lockKey(schema.tables())))
			.isOne();
		release.countDown();
		assertThat(firstRun.get(30, TimeUnit.SECONDS).outboxStates()).as("purged by the run that lost its lock").isEqualTo(10);
		assertThat(worker(RetentionSettings.defaults().withBatchSize(10)).runOnce().outboxStates()).isEqualTo(20);
	}

	private static RetentionListener awaiting(CountDownLatch firstBatchDone, CountDownLatch release) {
		return new RetentionListener() {

			@Override
			public void batchCommitted(RetentionResult batch, Duration duration) {
				firstBatchDone.countDown();
				try {
					release.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}

		};
	}

	@Test
	void workersOnOtherTablesDoNotShareTheLock() {
		assertThat(RetentionSql.lockKey(schema.tables())).isEqualTo(RetentionSql.lockKey(schema.tables()))
			.isNotEqualTo(RetentionSql.lockKey(dev.waybill.kernel.OutboxTables.inSchema("other")));
	}

}
