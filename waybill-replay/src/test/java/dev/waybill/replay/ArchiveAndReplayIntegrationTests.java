package dev.waybill.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
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
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.replay.internal.JdbcReplays;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.TestRetention;

/**
 * The retention worker archives published messages; a replay job publishes them again, through
 * the outbox and a real RabbitMQ, to a new queue, surviving the death of the worker running it.
 */
class ArchiveAndReplayIntegrationTests {

	private static final int MESSAGES = 10_000;

	private TestSchema schema;

	private final List<AutoCloseable> resources = new ArrayList<>();

	private String name;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		this.schema = TestSchema.withWaybillTables("replay");
		this.name = "waybill-test.replay." + UUID.randomUUID().toString().substring(0, 8);
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.channel.queueDelete(this.name);
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void tenThousandArchivedMessagesReplayToANewQueueOnceEachAfterTheReplayWorkerIsKilled() throws Exception {
		long started = System.nanoTime();
		Set<String> originals = publishAndMarkPublished(MESSAGES, "orders.original");
		System.out.println("PUBLISHED in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		retention.archive(new RetentionArchive(true, Duration.ofDays(90)));
		RetentionResult purged = retention.runOnce();
		assertThat(purged.outboxMessages()).isEqualTo(MESSAGES);
		assertThat(count(this.schema.tables().qualifiedOutboxMessage())).isZero();
		assertThat(count(archive())).isEqualTo(MESSAGES);
		reportArchiveSize();
		long phase = System.nanoTime();

		this.channel.queueDeclare(this.name, false, false, false, null);
		startRelay();
		JdbcReplays api = replays(false);
		ReplayJob job = api.start(ReplayRequest.all().destination("orders.original").to(ReplayTarget.queue(this.name))
			.paced(250, 10000));
		assertThat(job.status()).isEqualTo(ReplayStatus.RUNNING);
		assertThat(job.upperSequence()).isPositive();

		Process child = startReplayProcess();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.until(() -> api.find(job.id()).orElseThrow().replayed() >= 2000);
			child.destroyForcibly();
			assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			child.destroyForcibly();
		}
		ReplayJob halfway = api.find(job.id()).orElseThrow();
		assertThat(halfway.status()).isEqualTo(ReplayStatus.RUNNING);
		assertThat(halfway.replayed()).as("killed part-way").isBetween(2000L, (long) MESSAGES - 1);
		assertThat(halfway.replayed() % 250).as("whole batches only").isZero();

		replays(true); // another instance's worker takes the job over from its cursor
		Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
			.until(() -> api.find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
		assertThat(api.find(job.id()).orElseThrow().replayed()).isEqualTo(MESSAGES);
		System.out.println("REPLAY written in " + Duration.ofNanos(System.nanoTime() - phase).toMillis() + " ms");

		List<String> received = new ArrayList<>();
		Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() -> {
			GetResponse response;
			while ((response = this.channel.basicGet(this.name, true)) != null) {
				received.add(response.getProps().getMessageId());
			}
			return received.size() >= MESSAGES;
		});
		Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true);
		GetResponse late = this.channel.basicGet(this.name, true);
		assertThat(late).as("nothing delivered twice").isNull();
		System.out.println("REPLAY delivered in " + Duration.ofNanos(System.nanoTime() - phase).toMillis() + " ms");
		assertThat(received).hasSize(MESSAGES).doesNotHaveDuplicates();
		assertThat(new HashSet<>(received)).as("the original message ids").isEqualTo(originals);
	}

	@Test
	void aReplaySelectsByTypeAndTimeWindowFromArchiveAndRetainedRowsAndCanGiveNewIds() {
		Set<String> archived = publishAndMarkPublished(30, "orders.a");
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET published_at = now() - interval '40 days'");
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		retention.archive(new RetentionArchive(true, Duration.ofDays(90)));
		retention.runOnce();
		// Five archived messages created before the window.
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + archive() + " SET created_at = now() - interval '2 hours'"
				+ " WHERE sequence_number IN (SELECT sequence_number FROM " + archive() + " ORDER BY sequence_number LIMIT 5)");
		Set<String> retained = publishAndMarkPublished(20, "orders.a");
		publishAndMarkPublished(5, "orders.other");
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET published_at = now() WHERE published_at > now() - interval '35 days'");
		JdbcReplays replays = replays(false);
		ReplayJob job = replays.start(ReplayRequest.all().destination("orders.a").messageType(Item.class.getCanonicalName())
			.between(java.time.Instant.now().minus(Duration.ofHours(1)), null).newMessageIds().paced(7, 0));
		while (replays.runBatch() >= 0) {
			// until no job is due
		}
		ReplayJob done = replays.find(job.id()).orElseThrow();
		assertThat(done.status()).isEqualTo(ReplayStatus.COMPLETED);
		assertThat(done.replayed()).isEqualTo(45);
		assertThat(done.completedAt()).isNotNull();
		List<String> replayed = new JdbcTemplate(this.schema.dataSource()).queryForList("SELECT m.message_id::text FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " m JOIN " + this.schema.tables().qualifiedOutboxState()
				+ " s ON s.id = m.outbox_id WHERE s.status = 'pending'", String.class);
		assertThat(replayed).hasSize(45).doesNotContainAnyElementsOf(archived).doesNotContainAnyElementsOf(retained);
		assertThat(replays.list()).extracting(ReplayJob::id).containsExactly(job.id());
		assertThat(replays.start(ReplayRequest.all().destination("nowhere")).status()).isEqualTo(ReplayStatus.RUNNING);
	}

	@Test
	void aPausedJobWritesNothingUntilResumedAndACancelledOneNeverAgain() {
		publishAndMarkPublished(10, "orders.a");
		JdbcReplays replays = replays(false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(4, 0));
		assertThat(replays.pause(job.id())).isTrue();
		assertThat(replays.runBatch()).isEqualTo(-1);
		assertThat(replays.resume(job.id())).isTrue();
		assertThat(replays.runBatch()).isEqualTo(4);
		assertThat(replays.cancel(job.id())).isTrue();
		assertThat(replays.runBatch()).isEqualTo(-1);
		assertThat(replays.resume(job.id())).isFalse();
		assertThat(replays.find(job.id()).orElseThrow().replayed()).isEqualTo(4);
	}

	@Test
	void theArchiveKeepsMessagesForArchiveAfterAndOnlyWhenArchivingIsOn() {
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables(), 4);
		publishAndMarkPublished(10, "orders.a");
		retention.runOnce();
		assertThat(count(archive())).as("archiving off: purged messages are deleted").isZero();
		assertThat(count(this.schema.tables().qualifiedOutboxMessage())).isZero();

		retention.archive(new RetentionArchive(true, Duration.ofDays(7)));
		publishAndMarkPublished(10, "orders.a");
		assertThat(retention.runOnce().outboxMessages()).isEqualTo(10);
		assertThat(count(archive())).isEqualTo(10);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + archive() + " WHERE published_at < now() - interval '30 days'",
				Long.class)).as("published_at kept").isEqualTo(10);
		jdbc.update("UPDATE " + archive() + " SET archived_at = now() - interval '8 days' WHERE sequence_number IN "
				+ "(SELECT sequence_number FROM " + archive() + " ORDER BY sequence_number LIMIT 6)");
		retention.runOnce();
		assertThat(count(archive())).as("older than archive-after: deleted, over several batches of 4").isEqualTo(4);
	}

	@Test
	void retentionKeepsTheArchivedMessagesAnUnfinishedReplayHasStillToReadAndCountsWhatItDeletes() {
		// A probe saw retention empty the archive under a running replay, which then reported
		// COMPLETED with 7,300 of 20,000 messages; the retention log did not count the archive.
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		retention.archive(new RetentionArchive(true, Duration.ofDays(7)));
		publishAndMarkPublished(10, "orders.a");
		retention.runOnce();
		assertThat(count(archive())).isEqualTo(10);
		jdbc.update("UPDATE " + archive() + " SET archived_at = now() - interval '8 days'");
		JdbcReplays replays = replays(false);
		ReplayJob job = replays.start(ReplayRequest.all().paced(4, 0));
		assertThat(replays.runBatch()).isEqualTo(4);

		RetentionResult whileRunning = retention.runOnce();
		assertThat(whileRunning.archivedMessages()).as("only what the job has read").isEqualTo(4);
		assertThat(count(archive())).isEqualTo(6);
		assertThat(replays.pause(job.id())).isTrue();
		assertThat(retention.runOnce().archivedMessages()).as("a paused job holds them too").isZero();
		assertThat(replays.resume(job.id())).isTrue();
		while (replays.runBatch() >= 0) {
			// until no job is due
		}
		assertThat(replays.find(job.id()).orElseThrow().replayed()).isEqualTo(10);
		RetentionResult afterwards = retention.runOnce();
		assertThat(afterwards.archivedMessages()).isEqualTo(6);
		assertThat(afterwards.total()).isGreaterThanOrEqualTo(6);
		assertThat(count(archive())).isZero();
	}

	@Test
	void withoutTheArchiveRetentionKeepsThePublishedMessagesAnUnfinishedReplayHasStillToRead() {
		TestRetention retention = TestRetention.on(this.schema.dataSource(), this.schema.tables());
		Set<String> originals = new HashSet<>();
		for (int i = 0; i < 10; i++) {
			originals.addAll(publishAndMarkPublished(1, "orders.a")); // a scope each: retention purges whole scopes
		}
		JdbcReplays replays = replays(false);
		ReplayJob job = replays.start(ReplayRequest.all().to(ReplayTarget.queue(this.name)).newMessageIds().paced(4, 0));
		assertThat(replays.runBatch()).isEqualTo(4);

		assertThat(retention.runOnce().outboxMessages()).as("only what the job has read").isEqualTo(4);
		List<String> retained = retainedIds();
		assertThat(retained.stream().filter(originals::contains)).as("the originals it has still to read").hasSize(6);
		assertThat(retained).as("and the job's copies").hasSize(10);
		assertThat(replays.cancel(job.id())).isTrue();
		retention.runOnce();
		assertThat(retainedIds()).as("the job's pending copies only").hasSize(4).doesNotContainAnyElementsOf(originals);
	}

	private List<String> retainedIds() {
		return new JdbcTemplate(this.schema.dataSource()).queryForList("SELECT message_id::text FROM "
				+ this.schema.tables().qualifiedOutboxMessage(), String.class);
	}

	/** The archive's size on disk after archiving MESSAGES messages, printed for the README. */
	private void reportArchiveSize() {
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		jdbc.execute("VACUUM ANALYZE " + archive());
		Long total = jdbc.queryForObject("SELECT pg_total_relation_size('" + archive() + "')", Long.class);
		Long heap = jdbc.queryForObject("SELECT pg_relation_size('" + archive() + "')", Long.class);
		Long indexes = jdbc.queryForObject("SELECT pg_indexes_size('" + archive() + "')", Long.class);
		Long body = jdbc.queryForObject("SELECT avg(octet_length(body))::bigint FROM " + archive(), Long.class);
		System.out.printf("ARCHIVE SIZE: %d messages (body %d bytes avg): total %d bytes (heap %d, indexes %d); "
				+ "%.0f MB per million%n", MESSAGES, body, total, heap, indexes, total * (1_000_000.0 / MESSAGES) / 1e6);
	}

	private Set<String> publishAndMarkPublished(int messages, String destination) {
		OutboxPublisher publisher = TestOutbox.builder(this.schema.dataSource(), this.schema.tables())
			.sourceHost("test")
			.build()
			.publisher();
		TransactionTemplate transactions = new TransactionTemplate(
				new DataSourceTransactionManager(this.schema.dataSource()));
		Set<String> ids = new HashSet<>();
		for (int start = 0; start < messages; start += 1000) {
			int from = start;
			transactions.executeWithoutResult((status) -> {
				for (int i = from; i < Math.min(messages, from + 1000); i++) {
					ids.add(publisher.send(destination, new Item(i, "order " + i + " of a realistic event payload"))
						.toString());
				}
			});
		}
		// Published 31 days ago, without relaying them: what retention archives.
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET status = 'published', published_at = now() - interval '31 days' WHERE status = 'pending'");
		return ids;
	}

	private long count(String table) {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM " + table, Long.class);
	}

	private String archive() {
		return new AuxiliaryTables(this.schema.tables()).qualifiedArchive();
	}

	private JdbcReplays replays(boolean worker) {
		JdbcReplays replays = new JdbcReplays(this.schema.dataSource(), this.schema.tables(),
				new DataSourceTransactionManager(this.schema.dataSource()), new RelayWakeUp(), Duration.ofMillis(50));
		replays.setWorker(worker);
		replays.start();
		this.resources.add(replays::stop);
		return replays;
	}

	private void startRelay() {
		Transport transport = TestRabbit.get().transport().build();
		TestRelay relay = TestOutbox.on(this.schema)
			.relay(transport)
			.settings(2, 10, Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofSeconds(5),
					RetryPolicy.defaults(), 3, Duration.ofSeconds(1))
			.build();
		this.resources.add(transport);
		this.resources.add(relay);
		relay.start();
	}

	private Process startReplayProcess() throws Exception {
		TestPostgres postgres = TestPostgres.get();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", classpath,
				"-Dlogback.configurationFile=" + System.getProperty("logback.configurationFile", ""),
				ReplayProcess.class.getName(), postgres.url(), postgres.user(), postgres.password(), this.schema.name());
		builder.redirectErrorStream(true);
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		return builder.start();
	}

	/** A published message. */
	public record Item(int number, String text) {
	}

}
