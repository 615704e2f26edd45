package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.test.TestSchema;

/**
 * The notification listener's connection lost, then PostgreSQL out of reach while it reconnects:
 * it says so once, and once when it listens again, not at every retry. A session timeout for idle
 * connections does not end it.
 */
class PostgresNotificationListenerIntegrationTests {

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(PostgresNotificationListener.class);

	private TestSchema schema;

	@BeforeEach
	void setUp() {
		this.logger.setLevel(Level.DEBUG);
		this.appender.start();
		this.logger.addAppender(this.appender);
		this.schema = TestSchema.withWaybillTables("listener");
	}

	@AfterEach
	void tearDown() {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(null);
		this.schema.close();
	}

	@Test
	void anOutageIsLoggedOnceWhenItStartsAndOnceWhenTheListenerIsBackNotAtEveryReconnect() {
		AtomicBoolean down = new AtomicBoolean();
		AtomicInteger refused = new AtomicInteger();
		DelegatingDataSource database = new DelegatingDataSource(this.schema.dataSource()) {
			@Override
			public Connection getConnection() throws SQLException {
				if (down.get()) {
					refused.incrementAndGet();
					throw new SQLException("Connection refused (test)", "08001");
				}
				return super.getConnection();
			}
		};
		String channel = this.schema.tables().notifyChannel();
		PostgresNotificationListener listener = new PostgresNotificationListener(database, channel, new RelayWakeUp());
		listener.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);

			down.set(true);
			JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
			assertThat(jdbc.queryForObject("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
					+ "WHERE query = ? AND pid <> pg_backend_pid()", Integer.class, "LISTEN " + channel)).isOne();
			// Reconnects after 0.5 and 1 s refused: three failures in all, with the lost connection.
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> refused.get() >= 2);
			assertThat(listener.isListening()).isFalse();
			down.set(false);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
		}
		finally {
			listener.stop();
		}
		assertThat(lines(Level.DEBUG)).as("the failed reconnects").hasSizeGreaterThanOrEqualTo(2);
		List<String> warnings = lines(Level.WARN);
		assertThat(warnings).singleElement().asString().startsWith("Waybill lost its PostgreSQL notification connection");
		assertThat(lines(Level.INFO)).filteredOn((line) -> line.contains("again")).singleElement().asString()
			.startsWith("Waybill listens for PostgreSQL notifications again, after PT");
	}

	@Test
	void anIdleSessionTimeoutADatabaseAdministratorSetDoesNotEndTheListenersConnection() {
		// as `ALTER ROLE ... SET idle_session_timeout = '1s'` gives every new session
		DelegatingDataSource database = new DelegatingDataSource(this.schema.dataSource()) {
			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				try (java.sql.Statement statement = connection.createStatement()) {
					statement.execute("SET idle_session_timeout = '1s'");
				}
				return connection;
			}
		};
		PostgresNotificationListener listener = new PostgresNotificationListener(database,
				this.schema.tables().notifyChannel(), new RelayWakeUp());
		listener.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
			// Before, PostgreSQL ended the idle connection every second: a warning, a reconnect.
			Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
				.until(() -> listener.isListening() && lines(Level.WARN).isEmpty());
		}
		finally {
			listener.stop();
		}
	}

	private List<String> lines(Level level) {
		return this.appender.list.stream().filter((event) -> event.getLevel() == level)
			.map(ILoggingEvent::getFormattedMessage).toList();
	}

}
