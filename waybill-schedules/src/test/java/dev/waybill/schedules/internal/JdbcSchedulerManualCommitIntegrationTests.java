package dev.waybill.schedules.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.schedules.Schedule;

/**
 * The scheduler's own writes on a pool that hands out connections with auto-commit off
 * ({@code spring.datasource.hikari.auto-commit=false}, common with Hibernate).
 */
class JdbcSchedulerManualCommitIntegrationTests {

	private TestSchema schema;

	private HikariDataSource manual;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("schedules_manual_commit");
		this.manual = TestPostgres.get().manualCommitPool("schedules-manual-commit", 2);
	}

	@AfterEach
	void tearDown() {
		this.manual.close();
		this.schema.close();
	}

	@Test
	void registerAndPauseCommitAlsoWhenThePoolDoesNotAutoCommit() {
		// Before, the rows were written on a bare pooled connection that never committed, and the
		// pool rolled them back: the schedule was never registered and never fired, silently.
		AuxiliaryTables tables = new AuxiliaryTables(this.schema.tables());
		OutboxPublisher publisher = TestOutbox.builder(this.manual, this.schema.tables())
			.sourceHost("test")
			.build()
			.publisher();
		Schedule schedule = Schedule.cron("nightly", "0 0 2 * * *", (tick, outbox) -> {
		});
		JdbcScheduler scheduler = new JdbcScheduler(this.manual, tables, new DataSourceTransactionManager(this.manual),
				publisher, List.of(schedule), Duration.ofMillis(200));
		JdbcTemplate other = new JdbcTemplate(this.schema.dataSource());

		scheduler.register();
		assertThat(other.queryForObject("SELECT count(*) FROM " + tables.qualifiedSchedule() + " WHERE name = 'nightly'",
				Integer.class)).isEqualTo(1);

		assertThat(scheduler.pause("nightly")).isTrue();
		assertThat(other.queryForObject("SELECT paused FROM " + tables.qualifiedSchedule() + " WHERE name = 'nightly'",
				Boolean.class)).isTrue();
	}

}
