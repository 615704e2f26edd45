package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.waybill.outbox.test.FaultyDataSource;
import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.RetentionListener;

/**
 * A database outage under the scheduled retention runs is told as the relay tells one: a warning
 * without a stack trace when the runs begin to fail, an info line when one succeeds again, the
 * failed runs between at debug. (A multi-instance fault probe saw a warning with a whole stack
 * trace at every run, every interval, for as long as the database was away.)
 */
class RetentionOutageLogIntegrationTests {

	private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			RetentionOutageLogIntegrationTests.this.events.add(event);
		}

	};

	private final Logger logger = (Logger) LoggerFactory.getLogger(RetentionWorker.class);

	private Level level;

	private TestSchema schema;

	@BeforeEach
	void capture() {
		this.schema = TestSchema.withWaybillTables("retention_outage");
		this.level = this.logger.getLevel();
		this.logger.setLevel(Level.DEBUG);
		this.appender.start();
		this.logger.addAppender(this.appender);
	}

	@AfterEach
	void release() {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(this.level);
		this.schema.close();
	}

	@Test
	void anOutageIsToldOnceWithoutAStackTraceAndItsEndOnce() {
		FaultyDataSource database = new FaultyDataSource(this.schema.dataSource());
		RetentionWorker worker = everyTwentyMillis(database, this.schema);
		worker.start();
		try {
			database.outage = true;
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> messages(Level.DEBUG).stream()
				.filter("Retention run failed again"::equals).count() >= 5);
			database.outage = false;
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> messages(Level.INFO).stream()
				.anyMatch((message) -> message.startsWith("Retention runs again after ")));
		}
		finally {
			worker.stop();
		}

		List<ILoggingEvent> warnings = this.events.stream().filter((event) -> event.getLevel() == Level.WARN).toList();
		assertThat(warnings).as("one warning for the whole outage").hasSize(1);
		assertThat(warnings.get(0).getFormattedMessage())
			.startsWith("Retention run failed: database unavailable (")
			.contains("injected outage: database unreachable")
			.endsWith("); retrying every PT0.02S");
		assertThat(warnings.get(0).getThrowableProxy()).as("no stack trace for an unreachable database").isNull();
	}

	@Test
	void aDatabaseThatTakesNoWritesIsToldAsAnOutageToo() throws Exception {
		// default_transaction_read_only, as an operator or a managed service whose storage is full sets it
		try (PrivatePostgres server = PrivatePostgres.start("retention-read-only");
				TestSchema readOnly = TestSchema.withWaybillTables(server.database(), "retention_read_only")) {
			RetentionWorker worker = everyTwentyMillis(readOnly.dataSource(), readOnly);
			server.execute("ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
			worker.start();
			try {
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> messages(Level.WARN).stream()
					.anyMatch((message) -> message.startsWith("Retention run failed: database unavailable (")));
				server.execute("ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> messages(Level.INFO).stream()
					.anyMatch((message) -> message.startsWith("Retention runs again after ")));
			}
			finally {
				worker.stop();
			}
		}
		List<ILoggingEvent> warnings = this.events.stream().filter((event) -> event.getLevel() == Level.WARN).toList();
		assertThat(warnings).as("one warning for the whole outage").hasSize(1);
		assertThat(warnings.get(0).getFormattedMessage()).contains("read-only transaction");
		assertThat(warnings.get(0).getThrowableProxy()).as("no stack trace for a database taking no writes").isNull();
	}

	/** A worker that runs every 20 ms, so that an outage is many failed runs within a test. */
	private static RetentionWorker everyTwentyMillis(javax.sql.DataSource database, TestSchema schema) {
		return new RetentionWorker(database, schema.tables(), new RetentionSettings(Duration.ofMillis(20), 100, true,
				Duration.ofDays(30), false, Duration.ofDays(90), null, Duration.ofMinutes(30)), RetentionListener.NONE);
	}

	private List<String> messages(Level level) {
		return this.events.stream().filter((event) -> event.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
	}

}
