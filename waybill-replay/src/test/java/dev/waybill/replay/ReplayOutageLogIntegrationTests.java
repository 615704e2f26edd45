package dev.waybill.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.test.Backends;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.replay.internal.JdbcReplays;

/**
 * A database outage under the replay worker is told as the relay and the retention worker tell
 * one: a warning without a stack trace naming the reason when its batches begin to fail, the
 * failures between at debug, an info line when a batch succeeds again; and no ERROR. (A
 * multi-instance probe saw, for an outage that began mid-batch, Spring's ERROR "Application
 * exception overridden by rollback exception" with a whole stack trace, then a warning with a
 * stack trace at every retry.) The outage is real: the worker's backend is terminated mid-batch
 * and its network path to PostgreSQL (a TCP proxy) refuses connections for a few seconds.
 */
class ReplayOutageLogIntegrationTests {

	private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing();
			ReplayOutageLogIntegrationTests.this.events.add(event);
		}

	};

	private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

	private final Logger logger = (Logger) LoggerFactory.getLogger(JdbcReplays.class);

	private Level level;

	private TestSchema schema;

	@BeforeEach
	void capture() {
		this.schema = TestSchema.withWaybillTables("replay_outage");
		this.level = this.logger.getLevel();
		this.logger.setLevel(Level.DEBUG);
		this.appender.start();
		this.root.addAppender(this.appender);
	}

	@AfterEach
	void release() {
		this.root.detachAppender(this.appender);
		this.logger.setLevel(this.level);
		this.schema.close();
	}

	@Test
	void anOutageMidBatchIsToldOnceWithoutAStackTraceAndItsEndOnceAndNothingAtError() throws Exception {
		publishOriginals(200);
		URI target = URI.create(TestPostgres.get().url().substring("jdbc:".length()));
		try (TcpProxy proxy = TcpProxy.start(target.getHost(), target.getPort());
				HikariDataSource pool = pool(proxy, target)) {
			JdbcReplays replays = new JdbcReplays(pool, this.schema.tables(), new DataSourceTransactionManager(pool),
					new RelayWakeUp(), Duration.ofMillis(50));
			replays.start();
			try {
				ReplayJob job = replays.start(ReplayRequest.all().paced(10, 20)); // a batch every 500 ms
				try (Connection blocker = TestPostgres.get().connect()) {
					blocker.setAutoCommit(false);
					try (Statement statement = blocker.createStatement()) {
						statement.execute("LOCK TABLE " + new AuxiliaryTables(this.schema.tables()).qualifiedArchive()
								+ " IN ACCESS EXCLUSIVE MODE");
					}
					int pid = Backends.awaitBlocked(this.schema.dataSource(), "picked");
					// The outage begins with the worker's batch under way.
					proxy.cut();
					Backends.terminate(pid);
					// A few passes fail (each told at WARN or DEBUG, depending on the version).
					Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> this.events.stream()
						.filter((event) -> event.getLoggerName().equals(JdbcReplays.class.getName())
								&& (event.getLevel() == Level.WARN || event.getLevel() == Level.DEBUG))
						.count() >= 4);
					blocker.rollback();
				}
				proxy.restore();
				new JdbcTemplate(this.schema.dataSource()).update("UPDATE "
						+ new AuxiliaryTables(this.schema.tables()).qualifiedReplay() + " SET batch_interval_ms = 0");
				Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions() // the pool reconnecting
					.until(() -> replays.find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
				assertThat(replays.find(job.id()).orElseThrow().replayed()).isEqualTo(200);
			}
			finally {
				replays.stop();
			}
		}

		assertThat(this.events.stream().filter((event) -> event.getLevel() == Level.ERROR)
			.map((event) -> event.getLoggerName() + ": " + event.getFormattedMessage())).as("nothing at ERROR").isEmpty();
		List<ILoggingEvent> warnings = this.events.stream()
			.filter((event) -> event.getLevel() == Level.WARN && event.getLoggerName().equals(JdbcReplays.class.getName()))
			.toList();
		assertThat(warnings).as("one warning for the whole outage").hasSize(1);
		assertThat(warnings.get(0).getFormattedMessage()).startsWith("Replay worker failed a batch: database unavailable (")
			.endsWith("); retrying every PT0.05S");
		assertThat(warnings.get(0).getThrowableProxy()).as("no stack trace for an unreachable database").isNull();
		assertThat(messages(Level.INFO).stream().filter((message) -> message.startsWith("Replay worker runs again after ")))
			.as("its end told once").hasSize(1);
	}

	private HikariDataSource pool(TcpProxy proxy, URI target) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(TestPostgres.get().url().replace("//" + target.getHost() + ":" + target.getPort() + "/",
				"//" + proxy.host() + ":" + proxy.port() + "/"));
		config.setUsername(TestPostgres.get().user());
		config.setPassword(TestPostgres.get().password());
		config.setMaximumPoolSize(3);
		config.setConnectionTimeout(500);
		config.setPoolName("replay-outage");
		return new HikariDataSource(config);
	}

	private void publishOriginals(int messages) {
		OutboxPublisher publisher = TestOutbox.builder(this.schema.dataSource(), this.schema.tables())
			.sourceHost("test")
			.build()
			.publisher();
		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource()))
			.executeWithoutResult((status) -> {
				for (int i = 0; i < messages; i++) {
					publisher.send("orders", new ArchiveAndReplayIntegrationTests.Item(i, "order " + i));
				}
			});
		new JdbcTemplate(this.schema.dataSource()).update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET status = 'published', published_at = now() WHERE status = 'pending'");
	}

	private List<String> messages(Level level) {
		return this.events.stream().filter((event) -> event.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
	}

}
