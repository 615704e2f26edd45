package dev.waybill.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.schedules.SchedulerProcess.Beat;
import dev.waybill.schedules.internal.JdbcScheduler;

/**
 * What the scheduler tests share: schedulers and pools on a test schema (closed with the test's
 * resources), the beats they wrote to the outbox, and the check that every tick fired once.
 */
final class ScheduleFixtures {

	private ScheduleFixtures() {
	}

	static JdbcScheduler scheduler(TestSchema schema, DataSource dataSource, List<AutoCloseable> resources,
			Schedule... schedules) {
		OutboxPublisher publisher = TestOutbox.builder(dataSource, schema.tables()).sourceHost("test").build().publisher();
		JdbcScheduler scheduler = new JdbcScheduler(dataSource, new AuxiliaryTables(schema.tables()),
				new DataSourceTransactionManager(dataSource), publisher, List.of(schedules), Duration.ofMillis(200));
		resources.add(scheduler::stop);
		return scheduler;
	}

	static HikariDataSource pool(String name, int size, List<AutoCloseable> resources) {
		HikariDataSource dataSource = TestPostgres.get().pool("schedules-" + name, size);
		resources.add(dataSource);
		return dataSource;
	}

	static Schedule everySecond(String exchange, String name, String instance) {
		return Schedule.cron(name, "* * * * * *",
				(tick, publisher) -> publisher.send(exchange, new Beat(tick.scheduledAt().toString(), instance)));
	}

	static List<Beat> outboxBeats(TestSchema schema) {
		return new JdbcTemplate(schema.dataSource()).query("SELECT body FROM "
				+ schema.tables().qualifiedOutboxMessage() + " ORDER BY sequence_number", (rs, n) -> {
					try {
						return TestOutbox.serializer().deserialize(rs.getBytes(1), Beat.class);
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
	}

	static String schedules(TestSchema schema) {
		return new AuxiliaryTables(schema.tables()).qualifiedSchedule();
	}

	static void assertEachTickOnceAndNoneMissing(List<Beat> fired) {
		List<Instant> ticks = fired.stream().map((beat) -> Instant.parse(beat.at())).sorted().toList();
		assertThat(ticks).as("each tick once").doesNotHaveDuplicates();
		for (int i = 1; i < ticks.size(); i++) {
			assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).as("no tick missing after " + ticks.get(i - 1))
				.isEqualTo(Duration.ofSeconds(1));
		}
	}

}
