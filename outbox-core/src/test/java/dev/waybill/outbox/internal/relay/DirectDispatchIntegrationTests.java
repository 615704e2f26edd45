package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.internal.DefaultOutboxPublisher;
import dev.waybill.outbox.internal.DirectDispatcher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.relay.CircuitState;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.ForwardingOutboxStore;
import dev.waybill.outbox.test.TestSchema;

/**
 * Direct dispatch: scopes written in this process leased to its relay and published right after
 * their commit, without a claim; and what becomes of them when the transaction rolls back, the
 * broker is unavailable, or the process that leased them is gone.
 */
class DirectDispatchIntegrationTests {

	/** Longer than any test: only a wake-up, a notification or direct dispatch delivers in time. */
	private static final Duration SLOW_POLL = Duration.ofSeconds(30);

	private final List<Relay> relays = new ArrayList<>();

	private TestSchema schema;

	private JdbcOutboxStore store;

	private FakeTransport broker;

	/** Scopes the relays claimed (not those they were handed directly). */
	private final AtomicInteger claimed = new AtomicInteger();

	/** The scopes the relays claimed, as their claims returned them. */
	private final List<ClaimedScope> claimedScopes = new java.util.concurrent.CopyOnWriteArrayList<>();

	/** Claims the relays ran, empty ones included. */
	private final AtomicInteger claimCalls = new AtomicInteger();

	/** Notifications the publisher would have sent to other instances' relays. */
	private final AtomicInteger notified = new AtomicInteger();

	private final RelayWakeUp wakeUp = new RelayWakeUp(this.notified::incrementAndGet);

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("direct");
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
	void aCommittedScopeIsPublishedByThisProcesssRelayWithoutAClaimOrAWakeUp() {
		Relay relay = startDirect(settings(SLOW_POLL));
		awaitIdle();

		UUID messageId = inTransaction((publisher) -> publisher.send("orders", new Ping("direct")));

		await().until(() -> this.broker.delivered().size() == 1);
		assertThat(this.broker.delivered().get(0).messageId()).isEqualTo(messageId);
		await().until(() -> "published".equals(stateOf(messageId).get("status")));
		assertThat(stateOf(messageId)).containsEntry("attempts", 1).containsEntry("lease_owner", null);
		assertThat(this.claimed).as("scopes claimed").hasValue(0);
		assertThat(this.notified).as("notifications to other instances").hasValue(0);
		assertThat(relay.status().liveThreads()).isEqualTo(relay.status().expectedThreads()).isEqualTo(2 + 3 + 1);
	}

	@Test
	void theScopeIsWrittenLeasedToTheRelaySoNoOtherClaimTakesItBeforeItsCommitIsHandedOver() {
		startDirect(settings(SLOW_POLL));
		List<Map<String, Object>> seenBeforeCommit = new ArrayList<>();

		inTransaction((publisher) -> {
			UUID id = publisher.send("orders", new Ping("leased"));
			// After the outbox's own before-commit write, still inside the transaction.
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void beforeCommit(boolean readOnly) {
					// On the transaction's own connection: the scope's rows are not committed yet.
					seenBeforeCommit.add(jdbc().queryForMap("SELECT attempts, lease_owner, lease_until > clock_timestamp() AS leased, "
								+ "next_attempt_at > clock_timestamp() AS not_due FROM " + state()
								+ " s JOIN " + messages() + " m ON m.outbox_id = s.id WHERE m.message_id = ?", id));
				}
			});
			return id;
		});

		assertThat(seenBeforeCommit).singleElement().satisfies((row) -> {
			assertThat(row).containsEntry("attempts", 1).containsEntry("leased", true).containsEntry("not_due", true);
			assertThat((String) row.get("lease_owner")).endsWith("/direct");
		});
		await().until(() -> this.broker.delivered().size() == 1);
	}

	@Test
	void aTransactionThatFailsToCommitPublishesNothingAndFreesTheRoomItHeld() {
		startDirect(settings(SLOW_POLL));
		// More failed commits than the dispatcher has room for: each held room for one message.
		int failed = DirectDispatch.MAX_MESSAGES + 50;
		for (int i = 0; i < failed; i++) {
			try {
				inTransaction((publisher) -> {
					UUID id = publisher.send("orders", new Ping("never"));
					failAtCommit();
					return id;
				});
			}
			catch (IllegalStateException expected) {
			}
		}
		UUID committed = inTransaction((publisher) -> publisher.send("orders", new Ping("committed")));

		await().until(() -> this.broker.delivered().size() == 1);
		assertThat(this.broker.delivered()).extracting(OutboxMessage::messageId).containsExactly(committed);
		assertThat(this.claimed).as("the committed scope went out directly: room was freed").hasValue(0);
		assertThat(count(state())).isEqualTo(1);
	}

	@Test
	void aTransactionPostgresAbortedAfterTheWriteIsNotPublishedThoughItsCommitReportsNoError() {
		startDirect(settings(SLOW_POLL));
		awaitIdle();

		inTransaction((publisher) -> {
			UUID id = publisher.send("orders", new Ping("never committed"));
			// After the outbox's write: a statement fails and the caller goes on. PostgreSQL has
			// aborted the transaction, its COMMIT rolls back, and the driver reports no error.
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void beforeCommit(boolean readOnly) {
					try {
						jdbc().execute("SELECT 1 / 0");
					}
					catch (org.springframework.dao.DataAccessException swallowed) {
					}
				}
			});
			return id;
		});

		Awaitility.await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2))
			.until(() -> this.broker.attempts().isEmpty());
		assertThat(count(state())).as("nothing was committed").isZero();
	}

	@Test
	void aScopeWrittenInsideASavepointThatIsRolledBackIsNotPublished() {
		startDirect(settings(SLOW_POLL));
		awaitIdle();
		OutboxScope undone = dev.waybill.outbox.test.TestMessages.scope("orders", "undone");
		OutboxScope kept = dev.waybill.outbox.test.TestMessages.scope("orders", "kept");

		// An OutboxWriter called by hand: its write, and the savepoint rollback that removes it.
		new TransactionTemplate(new DataSourceTransactionManager(schemaDataSource())).executeWithoutResult((status) -> {
			Object savepoint = status.createSavepoint();
			this.store.write(undone);
			status.rollbackToSavepoint(savepoint);
			this.store.write(kept);
		});

		await().until(() -> this.broker.delivered().size() == 1);
		Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.until(() -> this.broker.delivered().size() == 1);
		assertThat(this.broker.delivered()).extracting(OutboxMessage::messageId)
			.containsExactly(kept.messages().get(0).messageId());
		assertThat(count(state())).isEqualTo(1);
	}

	@Test
	void aScopeWhoseTransactionCommitsLongAfterItsWriteIsGivenBackAndPublishedOnceByAClaim() {
		// Confirms never come: a scope published twice would show as two publish calls.
		this.broker.behave("slow-commits", FakeTransport.Behaviour.HANG);
		// A lease of 2 s; the commit comes 1.2 s after the write: past half the lease, inside it.
		startDirect(new RelaySettings(2, 20, Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofSeconds(2),
				RetryPolicy.defaults(), 3, Duration.ofSeconds(1)));
		awaitIdle();

		UUID messageId = inTransaction((publisher) -> {
			UUID id = publisher.send("slow-commits", new Ping("late"));
			// Committed long after the outbox write (a batch of slow handlers, say).
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void beforeCommit(boolean readOnly) {
					sleep(Duration.ofMillis(1200));
				}
			});
			return id;
		});

		await().until(() -> this.broker.attempts("slow-commits").size() == 1);
		Awaitility.await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2))
			.until(() -> this.broker.attempts("slow-commits").size() == 1);
		assertThat(this.claimed).as("published by a claim, not directly").hasValue(1);
		assertThat(this.broker.attempts("slow-commits")).extracting(FakeTransport.Attempt::messageId).containsExactly(messageId);
		assertThat(stateOf(messageId)).as("given back without its attempt, then claimed once").containsEntry("attempts", 1);
	}

	@Test
	void aScopeLeasedByAProcessThatDiedIsDeliveredByAnotherRelayOnceTheLeaseEnds() {
		// The process that wrote the scope leased it to its relay, then died before publishing it.
		this.store.setDirectDispatcher(new DirectDispatcher() {
			@Override
			public DirectDispatcher.@Nullable Lease reserve(OutboxScope scope) {
				return new Lease(scope, "dead-process/direct", Duration.ofSeconds(2), Instant.now());
			}

			@Override
			public void committed(List<Lease> leases) {
			}

			@Override
			public void abandoned(List<Lease> leases) {
			}
		});
		UUID messageId = inTransaction((publisher) -> publisher.send("orders", new Ping("orphan")));
		// The write made the scope due when its lease ends (lease_until, taken a few microseconds later).
		Instant leaseEnd = ((java.sql.Timestamp) stateOf(messageId).get("next_attempt_at")).toInstant();
		start(settings(Duration.ofMillis(100)), new RelayWakeUp());

		await().until(() -> this.broker.delivered().size() == 1);
		// Not before the lease ends: until then the dead process might still have been publishing it.
		// Both times are the database's: the claim leased the scope from its now() for 60 s.
		assertThat(this.claimedScopes).singleElement()
			.satisfies((claim) -> assertThat(claim.leaseUntil().minus(Duration.ofSeconds(60))).as("claimed at")
				.isAfterOrEqualTo(leaseEnd));
		await().until(() -> "published".equals(stateOf(messageId).get("status")));
		assertThat(stateOf(messageId)).as("the dead process's attempt and the claim's").containsEntry("attempts", 2);
		assertThat(this.claimed).hasValue(1);
	}

	@Test
	void whileTheBrokerIsUnavailableScopesAreWrittenUnleasedAndClaimedOnceItIsBack() {
		this.broker.down(true);
		Relay relay = startDirect(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofSeconds(2), RetryPolicy.defaults(), 1, Duration.ofMillis(300)));
		await().until(() -> relay.circuitState() == CircuitState.OPEN);

		UUID messageId = inTransaction((publisher) -> publisher.send("orders", new Ping("during the outage")));
		assertThat(stateOf(messageId)).containsEntry("attempts", 0).containsEntry("lease_owner", null);
		assertThat(this.notified).as("an unleased scope wakes the relays").hasValue(1);

		this.broker.down(false);
		await().until(() -> this.broker.delivered().size() == 1);
		await().until(() -> "published".equals(stateOf(messageId).get("status")));
		assertThat(stateOf(messageId)).containsEntry("attempts", 1);
		assertThat(this.claimed).hasValue(1);
	}

	@Test
	void aScopeTheRelayCannotPublishAfterTheCommitIsGivenBackWithoutCountingTheAttempt() {
		startDirect(new RelaySettings(1, 10, Duration.ofSeconds(60), Duration.ofMillis(200), Duration.ofSeconds(2),
				RetryPolicy.defaults(), 3, Duration.ofSeconds(30)));
		awaitIdle();
		// Down after the relay started with its circuit closed: the scope is leased at its write,
		// and the direct worker finds no channel after the commit.
		this.broker.down(true);

		UUID messageId = inTransaction((publisher) -> publisher.send("orders", new Ping("given back")));

		await().until(() -> stateOf(messageId).get("lease_owner") == null);
		assertThat(stateOf(messageId)).containsEntry("status", "pending").containsEntry("attempts", 0);
		this.broker.down(false);
		await().until(() -> this.broker.delivered().size() == 1);
		await().until(() -> "published".equals(stateOf(messageId).get("status")));
	}

	@Test
	void aTransactionsUnkeyedMessagesGoDirectlyWhileItsKeyedOnesAreClaimedWithoutWaitingForAPoll() {
		startDirect(settings(SLOW_POLL));
		awaitIdle();

		inTransaction((publisher) -> {
			publisher.send("orders", new Ping("keyed"), (o) -> o.orderingKey("order-1"));
			publisher.send("orders", new Ping("unkeyed"));
			// A scope of its own, written after the transaction's main scope (two writes).
			return publisher.send("orders", new Ping("expiring"), (o) -> o.timeToLive(Duration.ofMinutes(5)));
		});

		// The keyed scope is claimed after the commit's wake-up: the poll would come after 30 s.
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> this.broker.delivered().size() == 3);
		assertThat(this.claimed).as("only the keyed scope was claimed").hasValue(1);
		assertThat(this.notified).as("other instances are told of the keyed scope").hasValue(1);
		assertThat(jdbc().queryForList("SELECT DISTINCT status FROM " + state(), String.class)).containsExactly("published");
	}

	@Test
	void keyedAndScheduledScopesAreClaimedAsBefore() {
		startDirect(settings(Duration.ofMillis(100)));
		awaitIdle();

		UUID keyed = inTransaction((publisher) -> publisher.send("orders", new Ping("keyed"), (o) -> o.orderingKey("order-1")));
		UUID scheduled = inTransaction((publisher) -> publisher.scheduleSend("orders", new Ping("later"),
				Instant.now().plusMillis(300), (o) -> {
		}).messageId());

		await().until(() -> this.broker.delivered().size() == 2);
		assertThat(this.claimed).hasValue(2);
		assertThat(this.broker.delivered()).extracting(OutboxMessage::messageId).containsExactly(keyed, scheduled);
	}

	private Relay startDirect(RelaySettings settings) {
		Relay relay = relay(settings, this.wakeUp);
		this.store.setDirectDispatcher(relay.enableDirectDispatch());
		relay.start();
		return relay;
	}

	private Relay start(RelaySettings settings, RelayWakeUp wakeUp) {
		Relay relay = relay(settings, wakeUp);
		relay.start();
		return relay;
	}

	private Relay relay(RelaySettings settings, RelayWakeUp wakeUp) {
		ForwardingOutboxStore counting = new ForwardingOutboxStore(this.store) {
			@Override
			public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
				List<ClaimedScope> scopes = super.claim(leaseOwner, lease, limit, commitOn);
				DirectDispatchIntegrationTests.this.claimed.addAndGet(scopes.size());
				DirectDispatchIntegrationTests.this.claimedScopes.addAll(scopes);
				DirectDispatchIntegrationTests.this.claimCalls.incrementAndGet();
				return scopes;
			}
		};
		Relay relay = new Relay(counting, this.broker, wakeUp, settings, RelayListener.NONE, new OutboxBacklog());
		this.relays.add(relay);
		return relay;
	}

	private static RelaySettings settings(Duration pollInterval) {
		return new RelaySettings(2, 20, Duration.ofSeconds(60), pollInterval, Duration.ofSeconds(2), RetryPolicy.defaults(),
				3, Duration.ofSeconds(1));
	}

	/** Waits until the relay's first claim went by, so what follows is not found by it. */
	private void awaitIdle() {
		await().until(() -> this.claimCalls.get() >= 1);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void failAtCommit() {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
			@Override
			public void beforeCommit(boolean readOnly) {
				throw new IllegalStateException("the commit fails after the outbox was written");
			}
		});
	}

	private UUID inTransaction(java.util.function.Function<OutboxPublisher, UUID> work) {
		OutboxPublisher publisher = new DefaultOutboxPublisher(this.store, new JacksonMessageSerializer(), this.wakeUp,
				1 << 20, Clock.systemUTC(), "test", new OutboxBacklog(), 0);
		return new TransactionTemplate(new DataSourceTransactionManager(schemaDataSource()))
			.execute((status) -> work.apply(publisher));
	}

	private javax.sql.DataSource schemaDataSource() {
		return this.schema.dataSource();
	}

	private Map<String, Object> stateOf(UUID messageId) {
		return jdbc().queryForMap("SELECT s.* FROM " + state() + " s JOIN " + messages()
				+ " m ON m.outbox_id = s.id WHERE m.message_id = ?", messageId);
	}

	private int count(String table) {
		return jdbc().queryForObject("SELECT count(*) FROM " + table, Integer.class);
	}

	private String state() {
		return this.schema.tables().qualifiedOutboxState();
	}

	private String messages() {
		return this.schema.tables().qualifiedOutboxMessage();
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

}
