package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * A primary that takes no writes ({@code default_transaction_read_only} set by an operator, as a
 * managed service does when its storage is nearly full, or a primary demoted to standby) is an
 * outage of the database, not a failure of the messages: the relay's claims fail and it says the
 * database is unavailable, no delivery attempt is counted, and once writes are taken again every
 * message is published once.
 */
class ReadOnlyDatabaseIntegrationTests {

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(TestRelay.LOGGER_NAME);

	private PrivatePostgres server;

	private TestSchema schema;

	private TestRelay relay;

	private final FakeTransport broker = new FakeTransport();

	@AfterEach
	void tearDown() {
		this.logger.detachAppender(this.appender);
		if (this.relay != null) {
			this.relay.close();
		}
		this.broker.close();
		if (this.schema != null) {
			this.schema.close();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void aPrimaryThatTakesNoWritesStopsClaimsAsAnOutageAndCostsNoAttempt() throws Exception {
		this.server = PrivatePostgres.start("read-only");
		this.schema = TestSchema.withWaybillTables(this.server.database(), "read_only");
		TestOutbox outbox = TestOutbox.on(this.schema);
		UUID message = new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource()))
			.execute((status) -> outbox.publisher().send("orders", new Ping()));
		this.server.execute("ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
		// A reload reaches each session when it next waits for a command: the pool's sessions are
		// replaced, so that the relay's first claim already meets a primary that takes no writes.
		((HikariDataSource) this.schema.dataSource()).getHikariPoolMXBean().softEvictConnections();
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		Awaitility.await().atMost(Duration.ofSeconds(10))
			.until(() -> "on".equals(jdbc.queryForObject("SHOW default_transaction_read_only", String.class)));
		this.appender.start();
		this.logger.addAppender(this.appender);

		this.relay = outbox.relay(this.broker)
			.settings(1, 20, Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofSeconds(2), RetryPolicy.defaults(), 3,
					Duration.ofSeconds(1))
			.start();
		Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> warnings().contains("database unavailable"));
		assertThat(warnings()).contains("read-only transaction").contains("no delivery attempt is counted");
		assertThat(this.broker.delivered()).isEmpty();
		assertThat(state(message)).containsEntry("attempts", 0);

		this.server.execute("ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
		Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> "published".equals(state(message).get("status")));
		assertThat(this.broker.delivered()).hasSize(1);
		assertThat(state(message)).containsEntry("attempts", 1);
	}

	private String warnings() {
		return String.join("\n", this.appender.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList());
	}

	private Map<String, Object> state(UUID messageId) {
		return new JdbcTemplate(this.schema.dataSource()).queryForMap("SELECT s.status, s.attempts FROM "
				+ this.schema.tables().qualifiedOutboxState() + " s JOIN " + this.schema.tables().qualifiedOutboxMessage()
				+ " m ON m.outbox_id = s.id WHERE m.message_id = ?", messageId);
	}

	@MessageType("test.read-only-ping")
	record Ping() {
	}

}
