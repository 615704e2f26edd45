package dev.waybill.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.test.Backends;
import dev.waybill.outbox.test.FaultyDataSource;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.schedules.SchedulerProcess.Beat;
import dev.waybill.schedules.internal.JdbcScheduler;

/**
 * Schedules under injected faults: commits that fail (rolled back, or committed but reported
 * failed), a backend terminated inside a tick, a database outage across due times, two instances
 * with one failing its commits, and builders that fail otherwise than with a plain
 * {@link RuntimeException}: a business row's duplicate key, an {@link Error}, a full outbox.
 */
class SchedulerFaultIntegrationTests {

	private TestSchema schema;

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final String exchange = "waybill-test.schedule-faults";

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("schedfault");
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.schema.close();
	}

	// --- 1. commit failure after the tick's scope was written -----------------------------------

	@Test
	void aCommitThatFailsAfterTheTicksScopeWasWrittenLeavesTheTickDueAndItFiresOnceAfterwards() {
		FaultyDataSource db = new FaultyDataSource(pool("commitfail"));
		JdbcScheduler scheduler = scheduler(db, hourly("report"));
		scheduler.register();
		Instant due = makeDue("report");
		db.failCommitAfter(0, FaultyDataSource.CommitFault.ROLLED_BACK);
		Throwable thrown = catchThrowable(scheduler::fireDue);
		assertThat(thrown).as("the commit failure surfaces").isNotNull();
		assertThat(db.faults.get()).isOne();
		assertThat(outboxBeats()).as("nothing committed").isEmpty();
		ScheduleStatus after = scheduler.find("report").orElseThrow();
		assertThat(after.failedTicks()).as("a commit failure is not a failed tick").isZero();
		assertThat(after.nextFireAt()).as("the tick is still due").isEqualTo(due);
		assertThat(scheduler.fireDue()).isEqualTo(1);
		assertThat(scheduler.fireDue()).isZero();
		assertThat(outboxBeats()).hasSize(1);
		assertThat(scheduler.find("report").orElseThrow().firedTicks()).isEqualTo(1);
	}

	@Test
	void aCommitThatSucceededButWasReportedFailedIsNotFiredAgain() {
		FaultyDataSource db = new FaultyDataSource(pool("ambiguous"));
		JdbcScheduler scheduler = scheduler(db, hourly("report"));
		scheduler.register();
		makeDue("report");
		db.failCommitAfter(0, FaultyDataSource.CommitFault.COMMITTED_BUT_REPORTED_FAILED);
		assertThat(catchThrowable(scheduler::fireDue)).isNotNull();
		assertThat(scheduler.fireDue()).as("the committed tick is not due any more").isZero();
		assertThat(outboxBeats()).hasSize(1);
	}

	// --- 2. the backend killed inside the tick ------------------------------------------------

	@Test
	void aBackendTerminatedInsideTheTickCostsNoTickAndIsNotRecordedAsFailed() {
		DataSource db = pool("terminated");
		AtomicBoolean kill = new AtomicBoolean(true);
		Schedule schedule = Schedule.cron("report", "0 0 * * * *", (tick, publisher) -> {
			publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), "report"));
			if (kill.getAndSet(false)) {
				terminateOwnBackend(db);
			}
		});
		JdbcScheduler scheduler = scheduler(db, schedule);
		scheduler.register();
		Instant due = makeDue("report");
		Throwable thrown = catchThrowable(scheduler::fireDue);
		assertThat(thrown).as("the dead connection surfaces").isNotNull();
		ScheduleStatus after = scheduler.find("report").orElseThrow();
		assertThat(after.failedTicks()).isZero();
		assertThat(after.nextFireAt()).isEqualTo(due);
		assertThat(outboxBeats()).isEmpty();
		assertThat(scheduler.fireDue()).isEqualTo(1);
		assertThat(outboxBeats()).hasSize(1);
	}

	// --- 3. a database outage across due times, with the loop running --------------------------

	@Test
	void aThreeSecondOutageAcrossDueTimesCostsNoTickAndDoublesNone() {
		FaultyDataSource db = new FaultyDataSource(pool("outage"));
		JdbcScheduler scheduler = scheduler(db, everySecond("beat", "x"));
		scheduler.start();
		sleep(2_500);
		db.outage = true;
		sleep(3_000);
		db.outage = false;
		sleep(3_000);
		scheduler.stop();
		List<Beat> fired = outboxBeats();
		assertThat(fired.size()).as("ticks in ~8.5 s").isBetween(7, 10);
		assertEachTickOnceAndNoneMissing(fired);
	}

	// --- 4. two schedulers, one of them failing half its commits ------------------------------

	@Test
	void twoInstancesOneFailingHalfItsCommitsFireEachTickOnce() {
		FaultyDataSource flaky = new FaultyDataSource(pool("flaky"));
		JdbcScheduler a = scheduler(flaky, everySecond("beat", "a"));
		JdbcScheduler b = scheduler(pool("b"), everySecond("beat", "b"));
		a.start();
		b.start();
		Instant end = Instant.now().plusSeconds(8);
		while (Instant.now().isBefore(end)) {
			flaky.failCommitAfter(0, ThreadLocalRandom.current().nextBoolean()
					? FaultyDataSource.CommitFault.ROLLED_BACK : FaultyDataSource.CommitFault.COMMITTED_BUT_REPORTED_FAILED);
			sleep(300);
		}
		a.stop();
		b.stop();
		List<Beat> fired = outboxBeats();
		assertThat(flaky.faults.get()).as("faults injected").isPositive();
		assertThat(fired.size()).isBetween(7, 10);
		assertEachTickOnceAndNoneMissing(fired);
	}

	// --- 5. a builder failing with a DataAccessException (a business row's duplicate key) ----------

	@Test
	void aBuilderThatKeepsFailingWithADataAccessExceptionIsRecordedAndDoesNotStarveOtherSchedules() {
		DataSource db = pool("dae");
		JdbcTemplate jdbc = new JdbcTemplate(db);
		jdbc.execute("CREATE TABLE " + this.schema.name() + ".report_run (id int PRIMARY KEY)");
		jdbc.update("INSERT INTO " + this.schema.name() + ".report_run VALUES (1)");
		// Writes a business row in the tick's transaction (as the README allows); the row exists
		// already, so every tick fails with DuplicateKeyException, a DataAccessException.
		Schedule broken = Schedule.cron("a-broken", "* * * * * *", (tick, publisher) -> {
			publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), "broken"));
			jdbc.update("INSERT INTO " + this.schema.name() + ".report_run VALUES (1)");
		});
		JdbcScheduler scheduler = scheduler(db, broken, everySecond("b-healthy", "healthy"));
		scheduler.start();
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(beatsBy("healthy")).as("ticks of the healthy schedule").isGreaterThanOrEqualTo(4);
			assertThat(scheduler.find("a-broken").orElseThrow().failedTicks())
				.as("the broken schedule's failed ticks are recorded").isPositive();
		});
		scheduler.stop();
		ScheduleStatus status = scheduler.find("a-broken").orElseThrow();
		assertThat(status.nextFireAt()).as("the broken schedule goes on with its next tick")
			.isAfter(Instant.now().minusSeconds(2));
	}

	// --- 6. a builder throwing an Error once ----------------------------------------------------

	@Test
	void aBuilderThatThrowsAnErrorOnceDoesNotStopTheScheduler() {
		DataSource db = pool("error");
		AtomicBoolean fail = new AtomicBoolean(true);
		Schedule flaky = Schedule.cron("a-flaky", "* * * * * *", (tick, publisher) -> {
			if (fail.getAndSet(false)) {
				throw new NoClassDefFoundError("com/acme/ReportDue (injected)");
			}
			publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), "flaky"));
		});
		JdbcScheduler scheduler = scheduler(db, flaky, everySecond("b-healthy", "healthy"));
		scheduler.start();
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(beatsBy("healthy")).as("healthy ticks after the Error").isGreaterThanOrEqualTo(4);
			assertThat(beatsBy("flaky")).as("the flaky schedule's later ticks").isGreaterThanOrEqualTo(3);
		});
		assertThat(fail).as("the Error was thrown").isFalse();
	}

	// --- 7. back-pressure: the outbox is full because the broker is down --------------------------

	@Test
	void aTickThatMeetsAFullOutboxDuringABrokerOutageIsNotLost() {
		DataSource db = pool("full");
		TestOutbox outbox = TestOutbox.builder(db, this.schema.tables()).sourceHost("test").maxPending(100).build();
		OutboxPublisher publisher = outbox.publisher();
		JdbcScheduler scheduler = new JdbcScheduler(db, new AuxiliaryTables(this.schema.tables()),
				new DataSourceTransactionManager(db), publisher, List.of(hourly("report")), Duration.ofMillis(200));
		this.resources.add(scheduler::stop);
		scheduler.register();
		Instant due = makeDue("report");
		// The relay cannot publish (broker down): the backlog it last read is at max-pending.
		outbox.reportBacklog(new OutboxStats(100, 100, 100, 0, Instant.now(), Duration.ZERO));
		assertThatThrownBy(scheduler::fireDue).isInstanceOf(OutboxFullException.class);
		ScheduleStatus waiting = scheduler.find("report").orElseThrow();
		assertThat(waiting.failedTicks()).as("a full outbox is not a failed tick").isZero();
		assertThat(waiting.nextFireAt()).as("the tick is still due").isEqualTo(due);
		outbox.reportBacklog(OutboxStats.EMPTY); // the broker is back
		assertThat(scheduler.fireDue()).isEqualTo(1);
		assertThat(outboxBeats()).as("the tick of " + due + " fired once the outbox had room").hasSize(1);
		assertThat(scheduler.find("report").orElseThrow().failedTicks()).isZero();
	}

	// --- helpers ---------------------------------------------------------------------------------

	private void terminateOwnBackend(DataSource db) {
		Connection own = DataSourceUtils.getConnection(db);
		try (Statement statement = own.createStatement();
				var rs = statement.executeQuery("SELECT pg_backend_pid()")) {
			rs.next();
			int pid = rs.getInt(1);
			Backends.terminate(pid);
			sleep(200);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private Instant makeDue(String name) {
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		jdbc.update("UPDATE " + schedules() + " SET next_fire_at = date_trunc('second', now()) WHERE name = ?", name);
		return jdbc.queryForObject("SELECT next_fire_at FROM " + schedules() + " WHERE name = ?",
				(rs, n) -> rs.getObject(1, OffsetDateTime.class).toInstant(), name);
	}

	private static void assertEachTickOnceAndNoneMissing(List<Beat> fired) {
		ScheduleFixtures.assertEachTickOnceAndNoneMissing(fired);
	}

	private Schedule hourly(String name) {
		return Schedule.cron(name, "0 0 * * * *",
				(tick, publisher) -> publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), name)));
	}

	private Schedule everySecond(String name, String instance) {
		return ScheduleFixtures.everySecond(this.exchange, name, instance);
	}

	private JdbcScheduler scheduler(DataSource dataSource, Schedule... schedules) {
		return ScheduleFixtures.scheduler(this.schema, dataSource, this.resources, schedules);
	}

	private HikariDataSource pool(String name) {
		return ScheduleFixtures.pool(name, 3, this.resources);
	}

	private long beatsBy(String instance) {
		return outboxBeats().stream().filter((beat) -> beat.by().equals(instance)).count();
	}

	private List<Beat> outboxBeats() {
		return ScheduleFixtures.outboxBeats(this.schema);
	}

	private String schedules() {
		return ScheduleFixtures.schedules(this.schema);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
