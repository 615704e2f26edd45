package dev.waybill.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.schedules.SchedulerProcess.Beat;
import dev.waybill.schedules.internal.JdbcScheduler;

/**
 * Schedules on a real PostgreSQL, with ticks relayed to a real RabbitMQ: several instances, a
 * killed instance, missed ticks, pause and resume, a failing tick.
 */
class SchedulerIntegrationTests {

	private TestSchema schema;

	private final List<AutoCloseable> resources = new ArrayList<>();

	private String exchange;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		this.schema = TestSchema.withWaybillTables("schedules");
		this.exchange = "waybill-test.schedules." + UUID.randomUUID().toString().substring(0, 8);
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		this.channel.exchangeDeclare(this.exchange, "fanout", false, true, null);
		this.channel.queueDeclare(this.exchange, false, false, true, null);
		this.channel.queueBind(this.exchange, this.exchange, "");
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.channel.queueDelete(this.exchange);
		this.channel.exchangeDelete(this.exchange);
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void twoInstancesPublishEachTickOfAnEverySecondScheduleOnceFor10Seconds() throws Exception {
		twoInstancesPublishEachTickOnce(pool("a"), pool("b"));
	}

	@Test
	void throughATransactionPoolerTwoInstancesPublishEachTickOnce() throws Exception {
		// Each transaction may run on another server connection: a tick's claim holds only within its own.
		TestPgBouncer pooler = TestPgBouncer.start(2);
		this.resources.add(pooler);
		HikariDataSource a = pooler.pool("schedules-pooled-a", 2);
		HikariDataSource b = pooler.pool("schedules-pooled-b", 2);
		this.resources.add(a);
		this.resources.add(b);
		twoInstancesPublishEachTickOnce(a, b);
	}

	private void twoInstancesPublishEachTickOnce(javax.sql.DataSource first, javax.sql.DataSource second)
			throws Exception {
		String name = "beat-" + UUID.randomUUID();
		startRelay();
		JdbcScheduler a = scheduler(first, everySecond(name, "a"));
		JdbcScheduler b = scheduler(second, everySecond(name, "b"));
		a.start();
		b.start();
		Instant started = Instant.now();
		Awaitility.await().atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(200))
			.until(() -> Duration.between(started, Instant.now()).toSeconds() >= 10);
		a.stop();
		b.stop();
		List<Beat> fired = outboxBeats();
		assertThat(fired.size()).as("ticks in 10 s").isBetween(9, 12);
		assertEachTickOnceAndNoneMissing(fired);
		List<Beat> received = new ArrayList<>();
		Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> {
			received.addAll(receive());
			return received.size() >= fired.size();
		});
		assertThat(received).as("delivered by RabbitMQ, each once").containsExactlyInAnyOrderElementsOf(fired);
		assertThat(new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM "
				+ this.schema.tables().qualifiedOutboxMessage() + " WHERE headers::text LIKE '%waybill-schedule-tick%'",
				Integer.class)).isEqualTo(fired.size());
	}

	@Test
	void anInstanceKilledInsideATickLosesAndDoublesNoTick() throws Exception {
		String name = "beat-" + UUID.randomUUID();
		Process child = startSchedulerProcess(name, 700);
		BlockingQueue<String> lines = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = in.readLine()) != null) {
					lines.add(line);
				}
			}
			catch (Exception ex) {
				// the child was killed
			}
		});
		reader.setDaemon(true);
		reader.start();
		String killedTick;
		JdbcScheduler parent;
		try {
			assertThat(lines.poll(30, TimeUnit.SECONDS)).isEqualTo("SCHEDULER STARTED");
			parent = scheduler(pool("parent"), everySecond(name, "parent"));
			parent.start();
			// Let the two share ticks until the child has committed one, then kill the child inside
			// its next one, while it holds the row's lock.
			String line;
			while (true) {
				line = lines.poll(20, TimeUnit.SECONDS);
				assertThat(line).as("the child fires ticks").isNotNull();
				for (String newer = lines.poll(); newer != null; newer = lines.poll()) {
					line = newer; // lines read late are ticks the child may have committed since
				}
				String holding = line.substring("HOLDING ".length());
				List<Beat> beats = outboxBeats();
				if (beats.stream().anyMatch((beat) -> beat.by().equals("child"))
						&& beats.stream().noneMatch((beat) -> beat.at().equals(holding))) {
					break; // the child has committed a tick and is inside this one, uncommitted
				}
			}
			child.destroyForcibly(); // SIGKILL while HOLDING: its transaction is open
			killedTick = line.substring("HOLDING ".length());
			assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			child.destroyForcibly();
		}
		Instant killed = Instant.now();
		Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
			.until(() -> Duration.between(killed, Instant.now()).toSeconds() >= 5);
		parent.stop();
		List<Beat> fired = outboxBeats();
		assertEachTickOnceAndNoneMissing(fired);
		Map<String, Beat> byTick = fired.stream().collect(Collectors.toMap(Beat::at, Function.identity()));
		assertThat(byTick).as("the tick the child died in").containsKey(killedTick);
		assertThat(byTick.get(killedTick).by()).as("fired again, by the survivor").isEqualTo("parent");
		assertThat(fired).extracting(Beat::by).contains("child", "parent");
	}

	@Test
	void missedTicksFollowEachSchedulesPolicy() {
		JdbcScheduler scheduler = scheduler(this.schema.dataSource(), everyMinute("once", MissedTickPolicy.FIRE_ONCE, 1),
				everyMinute("each", MissedTickPolicy.FIRE_EACH, 5), everyMinute("skip", MissedTickPolicy.SKIP, 1));
		scheduler.register();
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		// An hour of downtime: 60 missed ticks each.
		jdbc.update("UPDATE " + schedules() + " SET next_fire_at = date_trunc('minute', now()) - interval '60 minutes'");
		assertThat(scheduler.fireDue()).isEqualTo(3);
		Map<String, Long> fired = outboxBeats().stream().collect(Collectors.groupingBy(Beat::by, Collectors.counting()));
		assertThat(fired).containsExactlyInAnyOrderEntriesOf(Map.of("once", 1L, "each", 5L));
		assertThat(scheduler.list()).allSatisfy((status) -> assertThat(status.nextFireAt()).isAfter(Instant.now()));
		assertThat(scheduler.find("each").orElseThrow().firedTicks()).isEqualTo(5);
		assertThat(scheduler.fireDue()).as("nothing due any more").isZero();

		// A restart (a new instance registering the same schedules) keeps the rows as they stand.
		Map<String, Instant> before = scheduler.list().stream()
			.collect(Collectors.toMap(ScheduleStatus::name, ScheduleStatus::nextFireAt));
		JdbcScheduler restarted = scheduler(this.schema.dataSource(), everyMinute("once", MissedTickPolicy.FIRE_ONCE, 1),
				everyMinute("each", MissedTickPolicy.FIRE_EACH, 5), everyMinute("skip", MissedTickPolicy.SKIP, 1));
		restarted.register();
		assertThat(restarted.list().stream().collect(Collectors.toMap(ScheduleStatus::name, ScheduleStatus::nextFireAt)))
			.isEqualTo(before);
	}

	@Test
	void aPausedScheduleDoesNotFireAndResumesWithItsNextTickAfterNow() {
		JdbcScheduler scheduler = scheduler(this.schema.dataSource(), everySecond("paused", "x"));
		scheduler.register();
		assertThat(scheduler.pause("paused")).isTrue();
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		jdbc.update("UPDATE " + schedules() + " SET next_fire_at = now() - interval '1 hour'");
		assertThat(scheduler.fireDue()).isZero();
		assertThat(scheduler.find("paused").orElseThrow().paused()).isTrue();
		assertThat(scheduler.resume("paused")).isTrue();
		assertThat(scheduler.resume("paused")).as("not paused any more").isFalse();
		assertThat(scheduler.find("paused").orElseThrow().nextFireAt()).isAfter(Instant.now().minusMillis(500));
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.fireDue() == 1);
		assertThat(outboxBeats()).hasSize(1).allSatisfy((beat) -> assertThat(Instant.parse(beat.at()))
			.isAfter(Instant.now().minusSeconds(5)));
		assertThat(scheduler.pause("nonexistent")).isFalse();
	}

	@Test
	void aTickWhoseMessagesFailIsRecordedAndTheScheduleGoesOn() {
		Schedule failing = Schedule.cron("failing", "0 0 * * * *", (tick, publisher) -> {
			publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), "failing"));
			throw new IllegalStateException("report service down");
		});
		JdbcScheduler scheduler = scheduler(this.schema.dataSource(), failing);
		scheduler.register();
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + schedules() + " SET next_fire_at = now()");
		assertThat(scheduler.fireDue()).isEqualTo(1);
		ScheduleStatus status = scheduler.find("failing").orElseThrow();
		assertThat(status.failedTicks()).isEqualTo(1);
		assertThat(status.lastError()).contains("report service down");
		assertThat(status.nextFireAt()).isAfter(Instant.now());
		assertThat(outboxBeats()).as("the failed tick's messages rolled back").isEmpty();
		assertThat(scheduler.fireDue()).as("not retried").isZero();
	}

	private static void assertEachTickOnceAndNoneMissing(List<Beat> fired) {
		ScheduleFixtures.assertEachTickOnceAndNoneMissing(fired);
	}

	private Schedule everySecond(String name, String instance) {
		return ScheduleFixtures.everySecond(this.exchange, name, instance);
	}

	private Schedule everyMinute(String name, MissedTickPolicy policy, int limit) {
		return Schedule.cron(name, "0 * * * * *",
				(tick, publisher) -> publisher.send(this.exchange, new Beat(tick.scheduledAt().toString(), name)))
			.withMissedTicks(policy, limit)
			.withMisfireThreshold(Duration.ZERO);
	}

	private JdbcScheduler scheduler(javax.sql.DataSource dataSource, Schedule... schedules) {
		return ScheduleFixtures.scheduler(this.schema, dataSource, this.resources, schedules);
	}

	private HikariDataSource pool(String name) {
		return ScheduleFixtures.pool(name, 2, this.resources);
	}

	private void startRelay() {
		Transport transport = TestRabbit.get().transport().build();
		TestRelay relay = TestOutbox.on(this.schema)
			.relay(transport)
			.settings(1, 50, Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(5),
					RetryPolicy.defaults(), 3, Duration.ofSeconds(1))
			.build();
		this.resources.add(transport);
		this.resources.add(relay);
		relay.start();
	}

	private List<Beat> receive() throws Exception {
		List<Beat> beats = new ArrayList<>();
		GetResponse response;
		while ((response = this.channel.basicGet(this.exchange, true)) != null) {
			beats.add(TestOutbox.serializer().deserialize(response.getBody(), Beat.class));
		}
		return beats;
	}

	private List<Beat> outboxBeats() {
		return ScheduleFixtures.outboxBeats(this.schema);
	}

	private String schedules() {
		return ScheduleFixtures.schedules(this.schema);
	}

	private Process startSchedulerProcess(String name, long holdMillis) throws Exception {
		TestPostgres postgres = TestPostgres.get();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", classpath,
				"-Dlogback.configurationFile=" + System.getProperty("logback.configurationFile", ""),
				SchedulerProcess.class.getName(), postgres.url(), postgres.user(), postgres.password(),
				this.schema.name(), name, "* * * * * *", this.exchange, String.valueOf(holdMillis));
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		return builder.start();
	}

}
