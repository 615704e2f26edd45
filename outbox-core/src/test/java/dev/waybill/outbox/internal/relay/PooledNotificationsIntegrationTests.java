package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay's wake-ups through a real PgBouncer in transaction mode: there, {@code LISTEN} cannot
 * work, and the start-up check finds that out and polls instead, saying why; with a direct
 * connection for listening, commits that notify through the pooler still wake it at once.
 */
class PooledNotificationsIntegrationTests {

	private static final Duration POLL = Duration.ofMillis(100);

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(PostgresNotificationListener.class);

	private TestSchema schema;

	private TestPgBouncer pooler;

	private HikariDataSource pooled;

	@BeforeEach
	void setUp() {
		this.logger.setLevel(Level.INFO);
		this.appender.start();
		this.logger.addAppender(this.appender);
		this.schema = TestSchema.withWaybillTables("pooled_notify");
		this.pooler = TestPgBouncer.start(3);
		this.pooled = this.pooler.pool("pooled-notify", 4);
	}

	@AfterEach
	void tearDown() {
		this.logger.detachAppender(this.appender);
		this.logger.setLevel(null);
		if (this.pooled != null) {
			this.pooled.close();
		}
		if (this.pooler != null) {
			this.pooler.close();
		}
		this.schema.close();
	}

	@Test
	void behindATransactionPoolerTheListenerPollsSaysWhyAndNeverListensThroughIt() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		String channel = this.schema.tables().notifyChannel();
		PostgresNotificationListener listener = new PostgresNotificationListener(this.pooled, channel, wakeUp);
		listener.setMode(WakeUpMode.AUTO, this.pooled, POLL);
		listener.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> listener.modeInEffect() != null);
			assertThat(listener.modeInEffect()).isEqualTo(WakeUpMode.POLL);
			assertThat(lines(Level.INFO)).singleElement().asString()
				.startsWith("Waybill's relay polls for other instances' commits every PT0.1S instead of listening")
				.contains("keeps no database session, as behind a transaction-mode pooler")
				.contains("waybill.notifications.url");
			// Wakes the relay every poll interval, with nothing committed.
			for (int i = 0; i < 5; i++) {
				assertThat(wakeUp.await(Duration.ofSeconds(2))).as("wake-up " + i).isTrue();
			}
			assertThat(listener.isListening()).isFalse();
			assertThat(new JdbcTemplate(this.schema.dataSource()).queryForObject(
					"SELECT count(*) FROM pg_stat_activity WHERE query = ?", Integer.class, "LISTEN " + channel))
				.as("server sessions that ran LISTEN").isZero();
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void withADirectConnectionToListenOnCommitsNotifyingThroughThePoolerWakeItAtOnce() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		String channel = this.schema.tables().notifyChannel();
		PostgresNotificationListener listener = new PostgresNotificationListener(this.schema.dataSource(), channel,
				wakeUp);
		listener.setMode(WakeUpMode.AUTO, this.pooled, Duration.ofHours(1));
		listener.start();
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.pooled, channel)) {
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
			assertThat(listener.modeInEffect()).isEqualTo(WakeUpMode.LISTEN);
			assertThat(lines(Level.INFO)).singleElement().asString()
				.startsWith("Waybill's relay is woken by PostgreSQL LISTEN/NOTIFY on channel " + channel
						+ ": a test notification arrived after ");
			// The signal the listener gives once it listens, for commits it may have missed.
			assertThat(wakeUp.await(Duration.ofSeconds(2))).isTrue();
			assertThat(wakeUp.await(Duration.ofMillis(300))).as("woken with nothing committed").isFalse();
			for (int i = 0; i < 3; i++) {
				notifier.run();
				assertThat(wakeUp.await(Duration.ofSeconds(2))).as("woken by notification " + i).isTrue();
			}
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void onPostgresDirectlyTheCheckFindsThatListeningWorks() {
		PostgresNotificationListener listener = new PostgresNotificationListener(this.schema.dataSource(),
				this.schema.tables().notifyChannel(), new RelayWakeUp());
		listener.setMode(WakeUpMode.AUTO, this.schema.dataSource(), POLL);
		listener.start();
		try {
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
			assertThat(listener.modeInEffect()).isEqualTo(WakeUpMode.LISTEN);
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
