package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * The after-commit notification other instances' relays listen for: sent on the outbox's channel,
 * requests coalesced, never blocking the caller.
 */
class PostgresCommitNotifierIntegrationTests {

	private TestSchema schema;

	private Connection listener;

	private String channel;

	@BeforeEach
	void listen() throws Exception {
		this.schema = TestSchema.withWaybillTables("commit_notifier");
		this.channel = this.schema.tables().notifyChannel();
		this.listener = TestPostgres.get().connect();
		try (Statement statement = this.listener.createStatement()) {
			statement.execute("LISTEN " + this.channel);
		}
	}

	@AfterEach
	void close() throws Exception {
		this.listener.close();
		this.schema.close();
	}

	@Test
	void aListenerSkipsTheNotificationsOfItsOwnInstanceAndWakesForAnothers() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		try (PostgresCommitNotifier own = new PostgresCommitNotifier(this.schema.dataSource(), this.channel);
				PostgresCommitNotifier other = new PostgresCommitNotifier(this.schema.dataSource(), this.channel)) {
			PostgresNotificationListener listener = new PostgresNotificationListener(this.schema.dataSource(),
					this.channel, wakeUp, own.senderId());
			listener.start();
			try {
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
				// it looks once when it starts listening: that signal is not a notification's
				wakeUp.await(Duration.ofSeconds(1));

				own.run();
				assertThat(wakeUp.await(Duration.ofMillis(700))).as("its own instance's commit").isFalse();
				other.run();
				assertThat(wakeUp.await(Duration.ofSeconds(10))).as("another instance's commit").isTrue();
			}
			finally {
				listener.stop();
			}
		}
	}

	@Test
	void anotherStoresCommitIsToldByNameAndWakesTheDefaultStoreOnlyWhenItsCommitsAskedToo() throws Exception {
		RelayWakeUp wakeUp = new RelayWakeUp();
		List<String> stores = new CopyOnWriteArrayList<>();
		try (PostgresCommitNotifier own = new PostgresCommitNotifier(this.schema.dataSource(), this.channel);
				PostgresCommitNotifier other = new PostgresCommitNotifier(this.schema.dataSource(), this.channel)) {
			PostgresNotificationListener listener = new PostgresNotificationListener(this.schema.dataSource(),
					this.channel, wakeUp, own.senderId());
			listener.setStoreSignals(stores::add);
			listener.start();
			try {
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
				wakeUp.await(Duration.ofSeconds(1));

				own.notifyStore("acme");
				other.notifyStore("globex");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.contains("globex"));
				assertThat(stores).as("its own instance's store is not told").doesNotContain("acme");
				assertThat(wakeUp.await(Duration.ofMillis(300))).as("no default store commit").isFalse();

				other.run();
				other.notifyStore("initech");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.contains("initech"));
				assertThat(wakeUp.await(Duration.ofSeconds(10))).as("the default store's commit too").isTrue();
			}
			finally {
				listener.stop();
			}
		}
	}

	@Test
	void aRequestNotifiesTheOutboxChannel() throws Exception {
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.schema.dataSource(), this.channel)) {
			assertThat(poll(300)).as("nothing before a request").isEmpty();
			notifier.run();
			List<PGNotification> received = Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> poll(100), (notifications) -> !notifications.isEmpty());
			assertThat(received).singleElement().extracting(PGNotification::getName).isEqualTo(this.channel);
			assertThat(poll(300)).as("one request, one notification").isEmpty();
		}
	}

	@Test
	void requestsFromManyThreadsCoalesceAndNeverWaitOnTheDatabase() throws Exception {
		int threads = 8;
		int requestsEach = 500;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.schema.dataSource(), this.channel)) {
			CountDownLatch done = new CountDownLatch(threads);
			for (int t = 0; t < threads; t++) {
				pool.execute(() -> {
					for (int i = 0; i < requestsEach; i++) {
						notifier.run();
					}
					done.countDown();
				});
			}
			assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
			// The last request is always followed by a notification.
			List<PGNotification> received = new ArrayList<>();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
				received.addAll(poll(100));
				return !received.isEmpty() && poll(300).isEmpty();
			});
			assertThat(notifier.sent()).isBetween(1L, (long) threads * requestsEach);
			assertThat(received).isNotEmpty().allSatisfy((n) -> assertThat(n.getName()).isEqualTo(this.channel));
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void notificationsArePacedTheFirstAtOnceTheNextWhenTheIntervalEndsNoneLost() throws Exception {
		Duration interval = Duration.ofSeconds(3);
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.schema.dataSource(), this.channel,
				dev.waybill.outbox.WaybillThreads.platform(), interval)) {
			long start = System.nanoTime();
			notifier.run();
			assertThat(Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> poll(50), (n) -> !n.isEmpty()))
				.singleElement();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the first request after a quiet spell goes at once")
				.isLessThan(Duration.ofMillis(2_000));
			for (int i = 0; i < 1_000; i++) {
				notifier.run(); // commits within the interval
			}
			assertThat(poll(1_000)).as("no second notification within the interval").isEmpty();
			List<PGNotification> later = Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> poll(100), (n) -> !n.isEmpty());
			assertThat(later).as("the requests made meanwhile share one notification, when the interval ends")
				.singleElement();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(interval);
			assertThat(poll(300)).isEmpty();
			assertThat(notifier.sent()).isEqualTo(2);
		}
	}

	@Test
	void underContinuousRequestsTheDefaultSendsAtMostOneNotificationPerMillisecond() throws Exception {
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.schema.dataSource(), this.channel)) {
			long start = System.nanoTime();
			long end = start + Duration.ofMillis(500).toNanos();
			while (System.nanoTime() < end) {
				notifier.run();
			}
			long elapsedMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
			assertThat(notifier.sent()).isBetween(1L,
					elapsedMillis / PostgresCommitNotifier.DEFAULT_MIN_INTERVAL.toMillis() + 2);
		}
	}

	@Test
	void anUnreachableDatabaseCostsTheCallerNothing() {
		org.springframework.jdbc.datasource.DriverManagerDataSource nowhere = new org.springframework.jdbc.datasource.DriverManagerDataSource(
				"jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1");
		try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(nowhere, this.channel)) {
			long start = System.nanoTime();
			for (int i = 0; i < 1_000; i++) {
				notifier.run();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			assertThat(notifier.sent()).isZero();
		}
	}

	private List<PGNotification> poll(int millis) throws Exception {
		PGNotification[] notifications = this.listener.unwrap(PGConnection.class).getNotifications(millis);
		return (notifications != null) ? List.of(notifications) : List.of();
	}

}
