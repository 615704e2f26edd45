package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.sql.DataSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.RetryPolicy.Strategy;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.health.RelayHealthIndicator;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.metrics.RelayMetrics;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.FakeTransport.Behaviour;
import dev.waybill.outbox.test.FaultyDataSource;
import dev.waybill.outbox.test.ForwardingOutboxStore;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay against PostgreSQL with an in-memory broker whose failures the tests control. The
 * same behaviours over RabbitMQ (a real connection cut, a killed relay process) are tested in
 * outbox-rabbit.
 */
class RelayIntegrationTests {

	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private static final RetryPolicy FAST_RETRY = new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofMillis(100), 2,
			Duration.ofSeconds(5), 4, 0);

	private final List<Relay> relays = new ArrayList<>();

	private TestSchema schema;

	private JdbcOutboxStore store;

	private FakeTransport broker;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("relay");
		this.store = new JdbcOutboxStore(this.schema.dataSource(), this.schema.tables());
		this.broker = new FakeTransport();
	}

	@AfterEach
	void tearDown() {
		this.relays.forEach(Relay::stop);
		this.broker.close();
		this.schema.close();
	}

	@Test
	void deliversEveryScopeWithItsMessagesInOrderAndMarksItPublished() {
		List<OutboxScope> scopes = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			OutboxScope scope = TestMessages.scope("orders", i + ".1", i + ".2", i + ".3");
			scopes.add(scope);
			this.store.write(scope);
		}
		start(settings(), new OutboxBacklog(), RelayListener.NONE);

		await().until(() -> this.broker.delivered().size() == 180);
		await().until(() -> this.store.stats().pendingScopes() == 0);

		List<UUID> deliveredOrder = this.broker.delivered().stream().map(OutboxMessage::messageId).toList();
		for (OutboxScope scope : scopes) {
			List<UUID> ids = scope.messages().stream().map(OutboxMessage::messageId).toList();
			assertThat(deliveredOrder.indexOf(ids.get(0))).isLessThan(deliveredOrder.indexOf(ids.get(1)));
			assertThat(deliveredOrder.indexOf(ids.get(1))).isLessThan(deliveredOrder.indexOf(ids.get(2)));
		}
		assertThat(deliveredOrder).doesNotHaveDuplicates();
		assertThat(jdbc().queryForList("SELECT DISTINCT status FROM " + this.schema.tables().qualifiedOutboxState(), String.class))
			.containsExactly("published");
	}

	@Test
	void anIdleRelayIsWokenByTheCommitLongBeforeItsPollInterval() {
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings(), wakeUp, new OutboxBacklog(), RelayListener.NONE);
		awaitIdle(wakeUp);

		inTransaction(publisher(wakeUp, new OutboxBacklog(), 0), (p) -> p.publish(new Ping("hello")));

		// The poll would only fire after 30 s.
		Awaitility.await().atMost(SLOW_POLL.minusSeconds(10)).until(() -> this.broker.delivered().size() == 1);
	}

	@Test
	void aCommitOnAnotherInstanceWakesTheRelayThroughPostgresNotifications() {
		RelayWakeUp wakeUp = new RelayWakeUp();
		PostgresNotificationListener listener = new PostgresNotificationListener(this.schema.dataSource(),
				this.schema.tables().notifyChannel(), wakeUp);
		listener.start();
		try {
			await().until(listener::isListening);
			start(settings(), wakeUp, new OutboxBacklog(), RelayListener.NONE);
			awaitIdle(wakeUp);

			// Another instance: its own store, wake-up and commit notifier, nothing shared in memory.
			try (PostgresCommitNotifier notifier = new PostgresCommitNotifier(this.schema.dataSource(),
					this.schema.tables().notifyChannel())) {
				OutboxPublisher otherInstance = new DefaultOutboxPublisher(
						new JdbcOutboxStore(this.schema.dataSource(), this.schema.tables()), new JacksonMessageSerializer(),
						new RelayWakeUp(notifier), 1 << 20, Clock.systemUTC(), "other", new OutboxBacklog(), 0);
				inTransaction(otherInstance, (p) -> p.publish(new Ping("from afar")));

				Awaitility.await().atMost(SLOW_POLL.minusSeconds(10)).until(() -> this.broker.delivered().size() == 1);
			}
		}
		finally {
			listener.stop();
		}
	}

	@Test
	void messageFailuresRetryWithBackoffThenDieWithTheirErrorAndARedriveDeliversThem() {
		this.broker.behave("poison", Behaviour.NACK);
		OutboxScope scope = TestMessages.scope("poison", "p");
		this.store.write(scope);
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(settings().withRetry(FAST_RETRY), wakeUp, new OutboxBacklog(), RelayListener.NONE);

		await().until(() -> this.store.stats().deadScopes() == 1);

		Map<String, Object> row = stateRow(scope.id());
		assertThat(row).containsEntry("status", "dead").containsEntry("attempts", 4);
		assertThat((String) row.get("last_error")).startsWith("MESSAGE: nack for " + scope.messages().get(0).messageId());
		List<FakeTransport.Attempt> attempts = this.broker.attempts("poison");
		assertThat(attempts).hasSize(4);
		for (int retry = 0; retry < 3; retry++) {
			Duration gap = Duration.between(attempts.get(retry).at(), attempts.get(retry + 1).at());
			assertThat(gap).as("wait before retry %d", retry).isGreaterThanOrEqualTo(FAST_RETRY.baseDelay(retry));
		}
		assertThat(this.broker.delivered()).isEmpty();

		this.broker.behave("poison", Behaviour.CONFIRM);
		assertThat(new DefaultOutboxAdmin(this.store, wakeUp).redriveDestination("poison")).isEqualTo(1);
		await().until(() -> this.broker.delivered().size() == 1);
		await().until(() -> "published".equals(stateRow(scope.id()).get("status")));
	}

	@Test
	void aPermanentFailureIsDeadAtOnceWithoutBurningRetries() {
		this.broker.behave("amq.forbidden", Behaviour.PERMANENT);
		OutboxScope scope = TestMessages.scope("amq.forbidden", "p");
		this.store.write(scope);
		start(settings().withRetry(FAST_RETRY), new OutboxBacklog(), RelayListener.NONE);

		await().until(() -> this.store.stats().deadScopes() == 1);
		assertThat(stateRow(scope.id())).containsEntry("attempts", 1);
		assertThat((String) stateRow(scope.id()).get("last_error")).isEqualTo("PERMANENT: destination refused");
	}

	@Test
	void aBrokerOutageOpensTheCircuitCostsNoAttemptsAndLosesNothing() throws Exception {
		RelaySettings settings = new RelaySettings(2, 10, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofSeconds(2), FAST_RETRY, 2, Duration.ofMillis(300));
		List<CircuitState> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
		RelayListener recordCircuit = new RelayListener() {
			@Override
			public void circuitChanged(CircuitState state) {
				changes.add(state);
			}
		};
		this.broker.down(true);
		for (int i = 0; i < 30; i++) {
			this.store.write(TestMessages.scope("orders", "m" + i));
		}
		Relay relay = start(settings, new OutboxBacklog(), recordCircuit);

		await().until(() -> relay.circuitState() == CircuitState.OPEN);
		// Outlast max attempts x the largest backoff (4 x 800 ms) while the broker stays down.
		Awaitility.await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(this.store.stats().deadScopes()).isZero();
		assertThat(jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState(), Integer.class))
			.isZero();

		this.broker.down(false);
		await().until(() -> this.broker.delivered().size() == 30);
		await().until(() -> this.store.stats().pendingScopes() == 0);
		assertThat(changes).startsWith(CircuitState.OPEN).contains(CircuitState.HALF_OPEN)
			.endsWith(CircuitState.CLOSED);
		assertThat(jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState(), Integer.class))
			.as("the delivery that succeeded is the only attempt counted").isEqualTo(1);
	}

	@Test
	void aBrokerThatDropsTheChannelMidBatchGivesTheAttemptsBack() {
		this.broker.behave("slow", Behaviour.HANG);
		OutboxScope scope = TestMessages.scope("slow", "s");
		this.store.write(scope);
		start(settings(), new OutboxBacklog(), RelayListener.NONE);
		await().until(() -> this.broker.attempts("slow").size() == 1);

		this.broker.behave("slow", Behaviour.CONFIRM);
		this.broker.down(true);
		await().until(() -> (int) stateRow(scope.id()).get("attempts") == 0);
		this.broker.down(false);

		await().until(() -> this.broker.delivered().size() == 1);
	}

	@Test
	void aScopeLeasedByACrashedRelayIsDeliveredWhenTheLeaseExpires() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		this.store.write(scope);
		assertThat(this.store.claim("crashed-relay", Duration.ofSeconds(2), 10)).hasSize(1);
		start(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(200), Duration.ofSeconds(2),
				RetryPolicy.defaults(), 3, Duration.ofSeconds(1)), new OutboxBacklog(), RelayListener.NONE);

		await().until(() -> this.broker.delivered().size() == 1);
		await().until(() -> "published".equals(stateRow(scope.id()).get("status")));
		assertThat(stateRow(scope.id())).containsEntry("attempts", 2);
	}

	@Test
	void twoRelaysInParallelDeliverEveryMessageExactlyOnce() {
		for (int i = 0; i < 1500; i++) {
			this.store.write(TestMessages.scope("orders", "a" + i, "b" + i));
		}
		RelaySettings settings = new RelaySettings(2, 25, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofSeconds(2), RetryPolicy.defaults(), 3, Duration.ofSeconds(1));
		start(settings, new OutboxBacklog(), RelayListener.NONE);
		start(settings, new OutboxBacklog(), RelayListener.NONE);

		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> this.store.stats().pendingScopes() == 0);
		assertThat(this.broker.delivered()).hasSize(3000).extracting(OutboxMessage::messageId).doesNotHaveDuplicates();
	}

	@Test
	void stoppingGivesUnconfirmedScopesBackWithoutCountingTheAttempt() {
		this.broker.behave("slow", Behaviour.HANG);
		OutboxScope scope = TestMessages.scope("slow", "s");
		this.store.write(scope);
		Relay relay = start(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofMillis(300), RetryPolicy.defaults(), 3, Duration.ofSeconds(1)), new OutboxBacklog(),
				RelayListener.NONE);
		await().until(() -> this.broker.attempts("slow").size() == 1);

		relay.stop();

		assertThat(stateRow(scope.id())).containsEntry("status", "pending").containsEntry("attempts", 0)
			.containsEntry("lease_owner", null);
	}

	@Test
	void stoppingWhileTheDatabaseIsAwayDoesNotWaitForItToGiveScopesBack() throws Exception {
		// A graceful-stop probe: with the database down, the give-back waited out the pool's 30 s
		// connection timeout after the threads' own wait, and then failed anyway.
		this.broker.behave("slow", Behaviour.HANG);
		OutboxScope scope = TestMessages.scope("slow", "held");
		this.store.write(scope);
		AtomicInteger outage = new AtomicInteger(); // 0 up, 1 refused at once, 2 waited for (a pool's timeout)
		DataSource database = new DelegatingDataSource(this.schema.dataSource()) {

			@Override
			public Connection getConnection() throws SQLException {
				if (outage.get() == 2) {
					sleep(Duration.ofSeconds(30));
				}
				if (outage.get() != 0) {
					throw new SQLException("injected outage: database unreachable", "08001");
				}
				return super.getConnection();
			}

		};
		Relay relay = new Relay(new JdbcOutboxStore(database, this.schema.tables()), this.broker, new RelayWakeUp(),
				new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(200), Duration.ofMillis(300),
						RetryPolicy.defaults(), 3, Duration.ofSeconds(1)),
				RelayListener.NONE, new OutboxBacklog());
		this.relays.add(relay);
		relay.start();
		await().until(() -> this.broker.attempts("slow").size() == 1);
		outage.set(1);
		await().until(() -> relay.status().claimsFailingFor() != null);
		outage.set(2);

		long started = System.nanoTime();
		relay.stop();

		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("threads' wait only, no give-back")
			.isLessThan(Duration.ofSeconds(15));
		assertThat(stateRow(scope.id())).as("left to its lease").containsEntry("status", "pending")
			.extractingByKey("lease_owner").isNotNull();
	}

	@Test
	void aStoppedRelayStartsAgainWithEveryThreadAndSettlesWhatItPublishes() {
		this.store.write(TestMessages.scope("orders", "before"));
		Relay relay = start(settings(), new OutboxBacklog(), RelayListener.NONE);
		await().until(() -> this.store.stats().pendingScopes() == 0);
		relay.stop();
		OutboxScope scope = TestMessages.scope("orders", "after");
		this.store.write(scope);

		// as a Spring context's stop() and start() do
		relay.start();

		await().until(() -> this.broker.delivered().size() == 2);
		await().until(() -> "published".equals(stateRow(scope.id()).get("status")));
		assertThat(relay.status().liveThreads()).isEqualTo(relay.status().expectedThreads());
	}

	@Test
	void aConfirmedScopeWhoseMarkIsSlowKeepsItsLeaseAndIsNotPublishedAgain() {
		// A lease of 2 s: without an outcome a scope is renewed for 5 leases (10 s) at most.
		// Its outcome is known at once, but recording it takes 10.5 s, as under heavy load.
		// (A lease of 300 ms, renewed every 100 ms, lapsed whenever one renewal took 200 ms: the
		// relay's next poll claimed the scope again and published it twice; a lease of 1 s did so
		// once in CI, with the machine loaded by other builds.)
		CountDownLatch firstMark = new CountDownLatch(1);
		OutboxStore slowMarks = new ForwardingOutboxStore(this.store) {
			@Override
			public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
				if (firstMark.getCount() > 0) {
					firstMark.countDown();
					sleep(Duration.ofMillis(10_500));
				}
				return super.markPublished(leaseOwner, scopeIds);
			}
		};
		OutboxScope scope = TestMessages.scope("orders", "slowly marked");
		this.store.write(scope);
		Relay relay = new Relay(slowMarks, this.broker, new RelayWakeUp(), new RelaySettings(1, 10,
				Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofSeconds(2), RetryPolicy.defaults(), 3,
				Duration.ofSeconds(1)), RelayListener.NONE, new OutboxBacklog());
		this.relays.add(relay);
		relay.start();

		await().until(() -> "published".equals(stateRow(scope.id()).get("status")));
		// a lease left to expire meanwhile would have been claimed and published again
		Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
			.until(() -> this.broker.delivered().size() == 1);
		assertThat(stateRow(scope.id())).as("claimed once").containsEntry("attempts", 1);
	}

	@Test
	void aScopeWhoseLeaseWasTakenOverIsNotReportedPublishedByTheRelayThatLostIt() {
		// The relay paused (kill -STOP, a long GC) past its lease after the confirm: another relay
		// claimed the scope meanwhile, so the fenced mark changes nothing.
		OutboxStore takenOver = new ForwardingOutboxStore(this.store) {
			@Override
			public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
				jdbc().update("UPDATE " + RelayIntegrationTests.this.schema.tables().qualifiedOutboxState()
						+ " SET lease_owner = 'another-relay' WHERE id = ANY(?)",
						(Object) scopeIds.toArray(new UUID[0]));
				return super.markPublished(leaseOwner, scopeIds);
			}
		};
		OutboxScope scope = TestMessages.scope("orders", "taken over");
		this.store.write(scope);
		OutboxBacklog backlog = new OutboxBacklog();
		RelayMetrics metrics = new RelayMetrics(backlog);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		metrics.bindTo(registry);
		Relay relay = new Relay(takenOver, this.broker, new RelayWakeUp(), settings(), metrics, backlog);
		this.relays.add(relay);
		relay.start();

		await().until(() -> this.broker.delivered().size() == 1);
		Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
			.until(() -> "another-relay".equals(stateRow(scope.id()).get("lease_owner")));
		assertThat(stateRow(scope.id())).containsEntry("status", "pending");
		assertThat(registry.get(RelayMetrics.PUBLISHED).counter().count()).as("not this relay's to count").isZero();
	}

	@Test
	void aRelayWhoseSettlerDiedGivesBackWhatItHoldsInsteadOfRenewingItForEver() {
		// A probe saw a relay's settler die of an Error (a jar replaced under a running process):
		// the renewer went on renewing the leases of scopes no thread would ever record, so no other
		// relay could take them over for as long as the process lived.
		AtomicBoolean fail = new AtomicBoolean(true);
		OutboxStore broken = new ForwardingOutboxStore(this.store) {
			@Override
			public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
				if (fail.getAndSet(false)) {
					throw new NoClassDefFoundError("injected: a class the settler needs is gone");
				}
				return super.markPublished(leaseOwner, scopeIds);
			}
		};
		RelaySettings shortLeases = new RelaySettings(1, 20, Duration.ofSeconds(3), Duration.ofMillis(100),
				Duration.ofSeconds(2), RetryPolicy.defaults(), 3, Duration.ofSeconds(1));
		OutboxScope scope = TestMessages.scope("orders", "settled by nobody");
		this.store.write(scope);
		OutboxBacklog backlog = new OutboxBacklog();
		Relay relay = new Relay(broken, this.broker, new RelayWakeUp(), shortLeases, RelayListener.NONE, backlog);
		this.relays.add(relay);
		relay.start();
		await().dontCatchUncaughtExceptions().until(() -> this.broker.delivered().size() == 1);
		await().dontCatchUncaughtExceptions().until(() -> relay.status().liveThreads() < relay.status().expectedThreads());

		// given back: due at once, its attempt not counted, so another relay publishes it
		await().dontCatchUncaughtExceptions().until(() -> stateRow(scope.id()).get("lease_owner") == null);
		assertThat(stateRow(scope.id())).containsEntry("status", "pending");
		OutboxScope later = TestMessages.scope("orders", "written after");
		this.store.write(later);
		Awaitility.await().dontCatchUncaughtExceptions().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
			.until(() -> stateRow(later.id()).get("attempts").equals(0)); // its workers claim no more

		Relay other = new Relay(this.store, this.broker, new RelayWakeUp(), shortLeases, RelayListener.NONE,
				new OutboxBacklog());
		this.relays.add(other);
		other.start();
		await().dontCatchUncaughtExceptions().until(() -> "published".equals(stateRow(scope.id()).get("status"))
				&& "published".equals(stateRow(later.id()).get("status")));
	}

	@Test
	void whileItsCircuitProbesTheBrokerTheRelayIsStillDown() throws Exception {
		// A broker that black-holes connections: the probe after each cool-down waits out the
		// connection timeout, and the relay read UP for all that time.
		CountDownLatch probeAnswered = new CountDownLatch(1);
		FakeTransport blackHole = new FakeTransport() {
			@Override
			public void probe() throws TransportException {
				try {
					probeAnswered.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				super.probe();
			}
		};
		this.broker.close();
		this.broker = blackHole;
		blackHole.down(true);
		this.store.write(TestMessages.scope("orders", "m"));
		Relay relay = start(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(100),
				Duration.ofSeconds(2), FAST_RETRY, 1, Duration.ofMillis(200)), new OutboxBacklog(), RelayListener.NONE);
		RelayHealthIndicator health = new RelayHealthIndicator(relay, null);

		await().until(() -> relay.circuitState() == CircuitState.HALF_OPEN);
		Health probing = health.health();
		assertThat(probing.getStatus()).isEqualTo(Status.DOWN);
		assertThat(probing.getDetails()).containsEntry("circuit", "HALF_OPEN").containsKey("brokerFailure");

		blackHole.down(false);
		probeAnswered.countDown();
		await().until(() -> health.health().getStatus() == Status.UP);
		await().until(() -> blackHole.delivered().size() == 1);
	}

	@Test
	void whileTheBrokerBlocksPublishingTheRelayIsDownSayingWhy() {
		// A resource alarm: the relay read UP until a confirm was overdue (16-24 s in a probe), while
		// the transport knew within seconds that the broker took no publishes.
		AtomicReference<String> alarm = new AtomicReference<>();
		FakeTransport blocking = new FakeTransport() {
			@Override
			public String blocked() {
				return alarm.get();
			}
		};
		this.broker.close();
		this.broker = blocking;
		Relay relay = start(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(100),
				Duration.ofSeconds(2), FAST_RETRY, 1, Duration.ofMillis(200)), new OutboxBacklog(), RelayListener.NONE);
		RelayHealthIndicator health = new RelayHealthIndicator(relay, null);
		await().until(() -> health.health().getStatus() == Status.UP);

		alarm.set("rabbit-1:5672 (low on memory) for PT3S");
		Health blocked = health.health();
		assertThat(blocked.getStatus()).isEqualTo(Status.DOWN);
		assertThat(blocked.getDetails()).containsEntry("brokerBlocked", "rabbit-1:5672 (low on memory) for PT3S")
			.containsEntry("circuit", "CLOSED");

		alarm.set(null);
		assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		assertThat(health.health().getDetails()).doesNotContainKey("brokerBlocked");
	}

	@Test
	void whileItsClaimsFailTheRelayIsDownWithTheReasonAndUpAgainOnceTheyWork() {
		// A database-fault soak saw the relay UP, circuit CLOSED, through a whole database outage.
		FaultyDataSource database = new FaultyDataSource(this.schema.dataSource());
		OutboxBacklog backlog = new OutboxBacklog();
		Relay relay = new Relay(new JdbcOutboxStore(database, this.schema.tables()), this.broker, new RelayWakeUp(),
				new RelaySettings(1, 20, Duration.ofSeconds(60), Duration.ofMillis(100), Duration.ofSeconds(2),
						RetryPolicy.defaults(), 3, Duration.ofSeconds(1)),
				new RelayMetrics(backlog), backlog);
		this.relays.add(relay);
		RelayHealthIndicator health = new RelayHealthIndicator(relay, null);
		relay.start();
		await().until(() -> health.health().getStatus() == Status.UP);

		database.outage = true;
		Health down = Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(health::health, (reading) -> reading.getStatus() == Status.DOWN);
		assertThat(down.getDetails()).containsEntry("circuit", "CLOSED").containsKey("claimsFailingFor");
		assertThat((String) down.getDetails().get("claimFailure")).contains("injected outage: database unreachable");

		database.outage = false;
		await().until(() -> health.health().getStatus() == Status.UP);
		assertThat(health.health().getDetails()).doesNotContainKeys("claimsFailingFor", "claimFailure");
	}

	@Test
	void anotherStoreWhoseClaimsFailIsShownWhileTheRelayStaysUpAndTheDefaultStoreFlows() {
		TestSchema tenantSchema = TestSchema.withWaybillTables("relay_tenant");
		try {
			FaultyDataSource tenantDatabase = new FaultyDataSource(tenantSchema.dataSource());
			JdbcOutboxStore tenant = new JdbcOutboxStore(tenantDatabase, tenantSchema.tables());
			RelayWakeUp wakeUp = new RelayWakeUp();
			Relay relay = new Relay(this.store, this.broker, wakeUp, new RelaySettings(2, 20, Duration.ofSeconds(60),
					Duration.ofMillis(100), Duration.ofSeconds(2), RetryPolicy.defaults(), 3, Duration.ofSeconds(1)),
					RelayListener.NONE, new OutboxBacklog());
			this.relays.add(relay);
			relay.stores().add("tenant", tenant);
			RelayHealthIndicator health = new RelayHealthIndicator(relay, null);
			tenant.write(TestMessages.scope("orders", "tenant's, written before its outage"));
			tenantDatabase.outage = true;
			relay.start();

			this.store.write(TestMessages.scope("orders", "the default store's"));
			wakeUp.signal();
			await().until(() -> this.broker.delivered().size() == 1);
			await().until(() -> relay.stores().failing().containsKey("tenant"));
			Health reading = health.health();
			assertThat(reading.getStatus()).as("the other stores are relayed").isEqualTo(Status.UP);
			assertThat(reading.getDetails()).doesNotContainKey("claimsFailingFor");
			assertThat(List.copyOf(((Map<?, ?>) reading.getDetails().get("storesFailing")).keySet())).isEqualTo(List.of("tenant"));
			assertThat(String.valueOf(((Map<?, ?>) reading.getDetails().get("storesFailing")).get("tenant")))
				.contains("injected outage: database unreachable");

			tenantDatabase.outage = false;
			await().until(() -> this.broker.delivered().size() == 2);
			assertThat(this.broker.delivered().get(1).headers()).containsEntry(PublishOptions.STORE_HEADER, "tenant");
			await().until(() -> relay.stores().failing().isEmpty());
			assertThat(health.health().getDetails()).doesNotContainKey("storesFailing");
		}
		finally {
			tenantSchema.close();
		}
	}

	@Test
	void publishFailsFastWhileTheBacklogIsAtMaxPending() {
		this.broker.down(true);
		OutboxBacklog backlog = new OutboxBacklog();
		RelayWakeUp wakeUp = new RelayWakeUp();
		start(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(100), Duration.ofSeconds(1),
				RetryPolicy.defaults(), 1, Duration.ofSeconds(30)), wakeUp, backlog, RelayListener.NONE);
		OutboxPublisher publisher = publisher(wakeUp, backlog, 5);
		for (int i = 0; i < 5; i++) {
			inTransaction(publisher, (p) -> p.publish(new Ping("fill")));
		}

		await().until(() -> backlog.current().pendingMessages() == 5);

		assertThatExceptionOfType(OutboxFullException.class)
			.isThrownBy(() -> inTransaction(publisher, (p) -> p.publish(new Ping("one too many"))))
			.withMessageContaining("5 messages are waiting for delivery, at or over waybill.outbox.max-pending=5");
		assertThat(this.store.stats().pendingMessages()).isEqualTo(5);
	}

	@Test
	void metersCountWhatTheRelayDid() {
		this.broker.behave("poison", Behaviour.PERMANENT);
		this.store.write(TestMessages.scope("orders", "a", "b"));
		this.store.write(TestMessages.scope("poison", "p"));
		OutboxBacklog backlog = new OutboxBacklog();
		RelayMetrics metrics = new RelayMetrics(backlog);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		metrics.bindTo(registry);
		start(settings(), backlog, metrics);

		await().until(() -> registry.get(RelayMetrics.DEAD).counter().count() == 1);
		await().until(() -> registry.get(RelayMetrics.PUBLISHED).counter().count() == 2);
		assertThat(registry.get(RelayMetrics.LATENCY).timer().count()).isOne();
		assertThat(registry.get(RelayMetrics.FAILED).tag("cause", "message").counter().count()).isOne();
		assertThat(registry.get(RelayMetrics.CIRCUIT).gauge().value()).isZero();
		assertThat(registry.get(RelayMetrics.PENDING).gauge().value()).isGreaterThanOrEqualTo(0);
		backlog.update(this.store.stats()); // as the relay does every poll interval (30 s here)
		assertThat(registry.get(RelayMetrics.DEAD_SCOPES).gauge().value()).isOne();
		assertThat(registry.get(RelayMetrics.DUE_SCOPES).gauge().value()).isZero();
	}

	@Test
	void theOldestDueScopesAgeIsGaugedInSecondsAndScopesNotYetDueDoNotCount() {
		OutboxBacklog backlog = new OutboxBacklog();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new RelayMetrics(backlog).bindTo(registry);
		backlog.update(this.store.stats());
		assertThat(registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().value(TimeUnit.SECONDS)).isZero();

		OutboxScope waiting = TestMessages.scope("orders", "due for a while");
		this.store.write(waiting);
		OutboxScope later = TestMessages.scope("orders", "due later");
		this.store.write(later);
		jdbc().update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '90 seconds' WHERE id = ?", waiting.id());
		jdbc().update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '1 hour' + interval '2 hours' WHERE id = ?", later.id());
		backlog.update(this.store.stats()); // as the relay does every poll interval

		assertThat(registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().value(TimeUnit.SECONDS)).isBetween(89.0, 120.0);
		assertThat(registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().getId().getBaseUnit()).isEqualTo("seconds");
	}

	@Test
	void theOldestDueScopesAgeKeepsGrowingWhileTheDatabaseCannotBeRead() throws Exception {
		// A fault probe saw the gauge stand at 7 ms through a 16 s database outage while the lag grew.
		this.broker.down(true); // nothing is delivered
		FaultyDataSource database = new FaultyDataSource(this.schema.dataSource());
		OutboxBacklog backlog = new OutboxBacklog();
		RelayMetrics metrics = new RelayMetrics(backlog);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		metrics.bindTo(registry);
		Relay relay = new Relay(new JdbcOutboxStore(database, this.schema.tables()), this.broker, new RelayWakeUp(),
				new RelaySettings(1, 20, Duration.ofSeconds(60), Duration.ofMillis(100), Duration.ofSeconds(2),
						RetryPolicy.defaults(), 3, Duration.ofSeconds(1)),
				metrics, backlog);
		this.relays.add(relay);
		OutboxScope waiting = TestMessages.scope("orders", "due for a while");
		this.store.write(waiting);
		jdbc().update("UPDATE " + this.schema.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '30 seconds' WHERE id = ?", waiting.id());
		relay.start();
		await().until(() -> registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().value(TimeUnit.SECONDS) >= 30);

		database.outage = true;
		double before = registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().value(TimeUnit.SECONDS);
		Thread.sleep(1500);
		assertThat(registry.get(RelayMetrics.OLDEST_DUE_AGE).timeGauge().value(TimeUnit.SECONDS))
			.as("still due, and for longer").isGreaterThanOrEqualTo(before + 1.4);
		assertThat(registry.get(RelayMetrics.PENDING).gauge().value()).isOne();
	}

	private Relay start(RelaySettings settings, OutboxBacklog backlog, RelayListener listener) {
		return start(settings, new RelayWakeUp(), backlog, listener);
	}

	private Relay start(RelaySettings settings, RelayWakeUp wakeUp, OutboxBacklog backlog, RelayListener listener) {
		Relay relay = new Relay(this.store, this.broker, wakeUp, settings, listener, backlog);
		this.relays.add(relay);
		relay.start();
		return relay;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static RelaySettings settings() {
		return new RelaySettings(2, 20, Duration.ofSeconds(60), SLOW_POLL, Duration.ofSeconds(2), RetryPolicy.defaults(),
				3, Duration.ofSeconds(1));
	}

	/** Waits until the relay has drained its startup poll and is waiting for a signal. */
	private static void awaitIdle(RelayWakeUp wakeUp) {
		Awaitility.await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
	}

	private OutboxPublisher publisher(RelayWakeUp wakeUp, OutboxBacklog backlog, long maxPending) {
		return new DefaultOutboxPublisher(this.store, new JacksonMessageSerializer(), wakeUp, 1 << 20, Clock.systemUTC(),
				"test", backlog, maxPending);
	}

	private void inTransaction(OutboxPublisher publisher, Consumer<OutboxPublisher> work) {
		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource()))
			.executeWithoutResult((status) -> work.accept(publisher));
	}

	private Map<String, Object> stateRow(UUID id) {
		return jdbc().queryForMap("SELECT * FROM " + this.schema.tables().qualifiedOutboxState() + " WHERE id = ?", id);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(25));
	}

	@MessageType("test.ping")
	record Ping(String text) {
	}

	static String text(OutboxMessage message) {
		return new String(message.body(), StandardCharsets.UTF_8);
	}

	static OutboxStats stats(JdbcOutboxStore store) {
		return store.stats();
	}

}
