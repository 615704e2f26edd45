package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;
import dev.waybill.retention.test.RetentionRows;

/**
 * A {@code statement_timeout} a DBA set on Waybill's role that is shorter than one retention batch
 * takes: a probe with the samples saw every run cancelled at its first batch (SQLState 57014), every
 * interval, for as long as it ran, and nothing purged. The worker halves its batch until one fits,
 * keeps that size, and says so once per halving.
 */
class RetentionStatementTimeoutIntegrationTests {

	private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			RetentionStatementTimeoutIntegrationTests.this.events.add(event);
		}

	};

	private final Logger logger = (Logger) LoggerFactory.getLogger(RetentionWorker.class);

	private TestSchema schema;

	private HikariDataSource timingOut;

	@BeforeEach
	void createTables() {
		this.schema = TestSchema.withWaybillTables("retention_timeout");
		// Each deleted scope costs at least 20 ms, whatever the machine: a batch of 64 runs past the
		// timeout of 500 ms, one of 8 fits in it with room to spare.
		this.schema.execute("CREATE FUNCTION " + this.schema.name() + ".slow_delete() RETURNS trigger LANGUAGE plpgsql "
				+ "AS $$ BEGIN PERFORM pg_sleep(0.02); RETURN OLD; END $$");
		this.schema.execute("CREATE TRIGGER slow_delete BEFORE DELETE ON " + this.schema.tables().qualifiedOutboxState()
				+ " FOR EACH ROW EXECUTE FUNCTION " + this.schema.name() + ".slow_delete()");
		TestPostgres postgres = TestPostgres.get();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgres.url());
		config.setUsername(postgres.user());
		config.setPassword(postgres.password());
		config.setMaximumPoolSize(2);
		config.setPoolName("test-retention-timeout");
		config.setConnectionInitSql("SET statement_timeout = '500ms'"); // as ALTER ROLE ... SET would
		this.timingOut = new HikariDataSource(config);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	@AfterEach
	void dropTables() {
		this.logger.detachAppender(this.appender);
		this.timingOut.close();
		this.schema.close();
	}

	@Test
	void aBatchCancelledByTheStatementTimeoutIsHalvedUntilOneFitsAndEverythingIsPurged() {
		RetentionRows rows = new RetentionRows(this.schema);
		for (int i = 0; i < 64; i++) {
			rows.published("40 days");
		}
		RetentionWorker worker = new RetentionWorker(this.timingOut, this.schema.tables(),
				new RetentionSettings(Duration.ofSeconds(15), 64, true, Duration.ofDays(30), false, Duration.ofDays(90),
						null, Duration.ofMinutes(30)),
				RetentionListener.NONE);
		worker.setPacing(RetentionPacing.OFF);

		RetentionResult run = worker.runOnce();

		assertThat(run.outboxStates()).as("scopes purged by a run under the timeout").isEqualTo(64);
		assertThat(rows.count(this.schema.tables().qualifiedOutboxState())).isZero();
		List<String> warnings = this.events.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
		assertThat(warnings).isNotEmpty().allSatisfy((warning) -> assertThat(warning).contains("statement_timeout")
			.contains("SQLState 57014")
			.contains("waybill.retention.batch-size"));
		assertThat(warnings.get(0)).startsWith("Retention batch of 64 rows ran past the database's statement_timeout")
			.contains("purging in batches of 32 from now on");
		int halvings = warnings.size();

		// The next run starts at the size that fit: no new warning.
		for (int i = 0; i < 4; i++) {
			rows.published("40 days");
		}
		assertThat(worker.runOnce().outboxStates()).isEqualTo(4);
		assertThat(this.events.stream().filter((event) -> event.getLevel() == Level.WARN)).hasSize(halvings);
	}

}
