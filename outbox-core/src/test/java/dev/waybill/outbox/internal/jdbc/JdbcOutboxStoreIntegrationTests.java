package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

class JdbcOutboxStoreIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void createTables() {
		schema = TestSchema.withWaybillTables("store");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		jdbc = new JdbcTemplate(schema.dataSource());
	}

	@AfterAll
	static void dropTables() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", " + schema.tables().qualifiedOutboxMessage());
	}

	@Test
	void claimThatFailsWithAStateSpringCannotTranslateThrowsTheDriversException() {
		// PgBouncer in transaction mode with the driver's server-side prepared statements: PostgreSQL
		// answers 26000, which Spring's translators map to nothing (null).
		SQLException lost = new SQLException("ERROR: prepared statement \"S_1\" does not exist", "26000");
		DelegatingDataSource failingCommits = new DelegatingDataSource(schema.dataSource()) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> {
							if (method.getName().equals("commit")) {
								throw lost;
							}
							try {
								return method.invoke(connection, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			}

		};
		JdbcOutboxStore failing = new JdbcOutboxStore(failingCommits, schema.tables());

		assertThatExceptionOfType(UncategorizedSQLException.class)
			.isThrownBy(() -> failing.claim("relay-a", LEASE, 10, Runnable::run))
			.withCause(lost);
	}

	@Test
	void relayStatementsCommitAlsoWhenThePoolHandsOutConnectionsWithoutAutoCommit() {
		// spring.datasource.hikari.auto-commit=false: before, the claim and the settle ran in a
		// transaction nobody committed, which the pool rolled back, so every scope stayed pending
		// and was published again at each lease's end.
		try (HikariDataSource manual = TestPostgres.get().manualCommitPool("store-manual-commit", 2)) {
			JdbcOutboxStore relayStore = new JdbcOutboxStore(manual, schema.tables());
			OutboxScope scope = TestMessages.scope("orders", "first");
			store.write(scope);

			assertThat(relayStore.claim("relay-a", LEASE, 10)).hasSize(1);
			assertThat(jdbc.queryForObject("SELECT lease_owner FROM " + schema.tables().qualifiedOutboxState()
					+ " WHERE id = ?", String.class, scope.id())).isEqualTo("relay-a");
			assertThat(relayStore.markPublished("relay-a", List.of(scope.id()))).isEqualTo(1);
			assertThat(jdbc.queryForObject("SELECT status FROM " + schema.tables().qualifiedOutboxState()
					+ " WHERE id = ?", String.class, scope.id())).isEqualTo("published");
			try (Connection connection = manual.getConnection()) {
				assertThat(connection.getAutoCommit()).as("the pool's own default, given back").isFalse();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	@Test
	void writeStoresTheScopeAndClaimReturnsItsMessagesInPublishOrder() {
		OutboxScope scope = TestMessages.scope("orders", "first", "second", "third");
		store.write(scope);

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 10);

		assertThat(claimed).singleElement().satisfies((c) -> {
			assertThat(c.id()).isEqualTo(scope.id());
			assertThat(c.attempts()).isEqualTo(1);
			assertThat(c.leaseOwner()).isEqualTo("relay-a");
			assertThat(c.leaseUntil()).isAfter(Instant.now().plus(LEASE).minusSeconds(60));
			assertThat(c.messages()).extracting((m) -> new String(m.body(), StandardCharsets.UTF_8))
				.containsExactly("first", "second", "third");
		});
		OutboxMessage written = scope.messages().get(0);
		OutboxMessage read = claimed.get(0).messages().get(0);
		assertThat(read.messageId()).isEqualTo(written.messageId());
		assertThat(read.destination()).isEqualTo("orders");
		assertThat(read.routingKey()).isEqualTo("key");
		assertThat(read.messageType()).isEqualTo("test.message");
		assertThat(read.contentType()).isEqualTo("application/json");
		assertThat(read.headers()).isEqualTo(Map.of("tenant", "acme", "priority", 3, "urgent", true));
		assertThat(read.correlationId()).isEqualTo("corr-1");
		assertThat(read.conversationId()).isEqualTo("conv-1");
		assertThat(read.sourceHost()).isEqualTo("test-host");
		assertThat(read.sentAt()).isCloseTo(written.sentAt(), org.assertj.core.api.Assertions.within(1, java.time.temporal.ChronoUnit.MILLIS));
		assertThat(read.notBefore()).isNull();
	}

	@Test
	void claimReadsTimesToTheMicrosecondAndEmptyHeadersAsNone() {
		Instant sentAt = Instant.parse("1969-12-31T23:59:58.123456Z");
		Instant notBefore = Instant.parse("2020-02-29T12:00:00.000001Z");
		Instant expiresAt = Instant.parse("2999-01-01T00:00:00.999999Z");
		OutboxMessage written = new OutboxMessage(TimeOrderedUuids.next(), "orders", "", "test.message", "text/plain",
				Map.of(), "x".getBytes(StandardCharsets.UTF_8), null, null, null, sentAt, notBefore, expiresAt);
		OutboxScope scope = new OutboxScope(UUID.randomUUID(), List.of(written), null, null);
		store.write(scope);
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET next_attempt_at = now(), "
				+ "created_at = '2026-11-25 10:00:00.654321+00' WHERE id = ?", scope.id());

		ClaimedScope claimed = store.claim("relay-a", LEASE, 10).get(0);

		assertThat(claimed.createdAt()).isEqualTo(Instant.parse("2026-11-25T10:00:00.654321Z"));
		assertThat(claimed.leaseUntil()).isEqualTo(jdbc.queryForObject("SELECT lease_until FROM "
				+ schema.tables().qualifiedOutboxState() + " WHERE id = ?", OffsetDateTime.class, scope.id()).toInstant());
		OutboxMessage read = claimed.messages().get(0);
		assertThat(read.sentAt()).isEqualTo(sentAt);
		assertThat(read.notBefore()).isEqualTo(notBefore);
		assertThat(read.expiresAt()).isEqualTo(expiresAt);
		assertThat(read.headers()).isSameAs(Map.of());
		assertThat(read.correlationId()).isNull();
		assertThat(read.routingKey()).isEmpty();
	}

	@Test
	void aOneMessageScopeIsStoredAsTheSameMessageInALargerScope() {
		// One message is written by a statement of its own (scalar parameters); it must store
		// exactly what the general statement stores.
		Instant later = Instant.now().plusSeconds(3600);
		OutboxMessage template = new OutboxMessage(TimeOrderedUuids.next(), "orders", "key", "test.message",
				"application/json", Map.of("tenant", "acme", "n", 3L, "bin", new byte[] { 0, 1 }),
				new byte[] { 0, 1, 2, (byte) 255 }, "corr", "conv", "host", Instant.parse("2026-01-01T00:00:00.000001Z"),
				later, later.plusSeconds(60));
		OutboxScope one = new OutboxScope(UUID.randomUUID(), List.of(template), null, null);
		OutboxMessage second = new OutboxMessage(TimeOrderedUuids.next(), "other", "", "t", "text/plain", Map.of(),
				new byte[0], null, null, null, Instant.now(), null, null);
		OutboxScope two = new OutboxScope(UUID.randomUUID(), List.of(template, second), null, null);
		store.write(one);
		store.write(two);

		String columns = "s.next_attempt_at, s.message_count > 0 AS has_messages, s.ordering_key, s.ordering_held, "
				+ "m.message_id, m.destination, m.routing_key, m.message_type, m.content_type, m.headers::text, m.body, "
				+ "m.correlation_id, m.conversation_id, m.source_host, m.created_at, m.not_before, m.expires_at";
		String select = "SELECT " + columns + " FROM " + schema.tables().qualifiedOutboxState() + " s JOIN "
				+ schema.tables().qualifiedOutboxMessage() + " m ON m.outbox_id = s.id WHERE s.id = ? ORDER BY m.sequence_number LIMIT 1";
		Map<String, Object> fromOne = jdbc.queryForMap(select, one.id());
		Map<String, Object> fromTwo = jdbc.queryForMap(select, two.id());
		assertThat(fromOne).usingRecursiveComparison().isEqualTo(fromTwo);
		assertThat(fromOne.get("not_before")).isNotNull();
		assertThat(store.claim("relay-a", LEASE, 10)).isEmpty(); // both wait for their not-before time
	}

	@Test
	void messagesOfConcurrentScopesKeepTheirOwnOrder() {
		List<OutboxScope> scopes = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			scopes.add(TestMessages.scope("orders", i + "-a", i + "-b", i + "-c"));
		}
		scopes.forEach(store::write);

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 100);

		assertThat(claimed).hasSize(20).allSatisfy((c) -> assertThat(c.messages())
			.extracting((m) -> new String(m.body(), StandardCharsets.UTF_8).substring(new String(m.body(), StandardCharsets.UTF_8).indexOf('-')))
			.containsExactly("-a", "-b", "-c"));
	}

	@Test
	void claimTakesAtMostTheLimitAndNeverTheSameScopeTwiceWhileTheLeaseHolds() {
		for (int i = 0; i < 5; i++) {
			store.write(TestMessages.scope("orders", "m" + i));
		}

		List<ClaimedScope> first = store.claim("relay-a", LEASE, 3);
		List<ClaimedScope> second = store.claim("relay-b", LEASE, 3);
		List<ClaimedScope> third = store.claim("relay-c", LEASE, 3);

		assertThat(first).hasSize(3);
		assertThat(second).hasSize(2);
		assertThat(third).isEmpty();
		assertThat(ids(first)).doesNotContainAnyElementsOf(ids(second));
	}

	@Test
	void aScopeIsNotClaimedBeforeItsNotBeforeTime() {
		OutboxMessage later = TestMessages.message("orders", "later", Instant.now().plus(Duration.ofHours(1)));
		store.write(new OutboxScope(UUID.randomUUID(), List.of(TestMessages.message("orders", "now"), later), null, null));

		assertThat(store.claim("relay-a", LEASE, 10)).isEmpty();
		OffsetDateTime due = jdbc.queryForObject("SELECT next_attempt_at FROM " + schema.tables().qualifiedOutboxState(),
				OffsetDateTime.class);
		assertThat(due.toInstant()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
	}

	@Test
	void aScopeWhoseAttemptsWereSetToTheLargestIntegerByHandIsClaimedWithTheOthers() {
		OutboxScope edited = TestMessages.scope("orders", "edited");
		OutboxScope other = TestMessages.scope("orders", "other");
		store.write(edited);
		store.write(other);
		// An operator's UPDATE (the column allows any non-negative integer): before, the claim's
		// attempts + 1 failed with "integer out of range" and no scope due with it was ever claimed.
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState()
				+ " SET attempts = 2147483647, next_attempt_at = now() - interval '1 hour' WHERE id = ?", edited.id());

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 10);

		assertThat(ids(claimed)).containsExactlyInAnyOrder(edited.id(), other.id());
		assertThat(claimed).filteredOn((scope) -> scope.id().equals(edited.id()))
			.singleElement()
			.satisfies((scope) -> assertThat(scope.attempts()).isEqualTo(Integer.MAX_VALUE));
	}

	@Test
	void aScopeWhoseHeadersWereSetToJsonThatIsNotAnObjectIsDeadAndTheOthersAreClaimed() {
		OutboxScope edited = TestMessages.scope("orders", "edited");
		OutboxScope other = TestMessages.scope("orders", "other");
		store.write(edited);
		store.write(other);
		// jsonb accepts any JSON: an operator's '[1, 2]' failed the claim of every scope due with it.
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxMessage() + " SET headers = '[1, 2]' WHERE outbox_id = ?",
				edited.id());
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '1 hour' WHERE id = ?", edited.id());

		assertThat(ids(store.claim("relay-a", LEASE, 10))).containsExactly(other.id());
		Map<String, Object> row = jdbc.queryForMap("SELECT status, last_error, lease_owner FROM "
				+ schema.tables().qualifiedOutboxState() + " WHERE id = ?", edited.id());
		assertThat(row).containsEntry("status", "dead").containsEntry("lease_owner", null);
		assertThat((String) row.get("last_error")).contains("cannot be read", "headers must be a JSON object");
	}

	@Test
	void anExpiredLeaseMakesTheScopeClaimableAgainWithAnotherAttempt() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		// Long enough for the next claim to come inside it on a busy machine: a lease runs from the
		// claim's transaction start, so 300 ms had to cover its commit and another round trip.
		assertThat(store.claim("crashed-relay", Duration.ofSeconds(2), 10)).hasSize(1);
		assertThat(store.claim("relay-b", LEASE, 10)).isEmpty();

		List<ClaimedScope> takenOver = Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> store.claim("relay-b", LEASE, 10), (claimed) -> !claimed.isEmpty());

		assertThat(takenOver).singleElement().satisfies((c) -> {
			assertThat(c.id()).isEqualTo(scope.id());
			assertThat(c.attempts()).isEqualTo(2);
			assertThat(c.leaseOwner()).isEqualTo("relay-b");
		});
		assertThat(store.markPublished("crashed-relay", List.of(scope.id()))).as("the old owner is fenced off").isZero();
		assertThat(store.markPublished("relay-b", List.of(scope.id()))).isEqualTo(1);
	}

	@Test
	void parallelClaimersGetDisjointScopesAndTogetherAllOfThem() throws Exception {
		int scopes = 400;
		for (int i = 0; i < scopes; i++) {
			store.write(TestMessages.scope("orders", "m" + i));
		}
		int claimers = 6;
		CyclicBarrier start = new CyclicBarrier(claimers);
		ExecutorService pool = Executors.newFixedThreadPool(claimers);
		try {
			List<Future<List<UUID>>> results = new ArrayList<>();
			for (int t = 0; t < claimers; t++) {
				String owner = "relay-" + t;
				results.add(pool.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					List<UUID> mine = new ArrayList<>();
					List<ClaimedScope> batch;
					while (!(batch = store.claim(owner, LEASE, 7)).isEmpty()) {
						batch.forEach((c) -> mine.add(c.id()));
					}
					return mine;
				}));
			}
			List<UUID> all = new ArrayList<>();
			for (Future<List<UUID>> result : results) {
				all.addAll(result.get(60, TimeUnit.SECONDS));
			}
			assertThat(all).hasSize(scopes).doesNotHaveDuplicates();
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void markPublishedSettlesOnlyTheOwnersScopes() {
		store.write(TestMessages.scope("orders", "a"));
		store.write(TestMessages.scope("orders", "b"));
		List<UUID> claimed = ids(store.claim("relay-a", LEASE, 10));

		assertThat(store.markPublished("relay-b", claimed)).isZero();
		assertThat(store.markPublished("relay-a", claimed)).isEqualTo(2);
		assertThat(store.markPublished("relay-a", claimed)).as("already published").isZero();

		assertThat(jdbc.queryForList("SELECT status FROM " + schema.tables().qualifiedOutboxState()
				+ " WHERE published_at IS NOT NULL AND lease_owner IS NULL", String.class))
			.containsExactly("published", "published");
		assertThat(store.stats()).isEqualTo(OutboxStats.EMPTY);
	}

	@Test
	void retryLaterKeepsTheErrorAndTheAttemptAndWaitsTheDelay() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		store.claim("relay-a", LEASE, 10);

		assertThat(store.retryLater(scope.id(), "relay-b", "not mine", Duration.ZERO)).isFalse();
		assertThat(store.retryLater(scope.id(), "relay-a", "nack from broker", Duration.ofHours(1))).isTrue();

		assertThat(store.claim("relay-a", LEASE, 10)).isEmpty();
		Map<String, Object> row = stateRow(scope.id());
		assertThat(row).containsEntry("status", "pending").containsEntry("attempts", 1)
			.containsEntry("last_error", "nack from broker").containsEntry("lease_owner", null);
		assertThat(((java.sql.Timestamp) row.get("next_attempt_at")).toInstant()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
	}

	@Test
	void retryLaterWithNoDelayMakesTheScopeDueAtOnce() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		store.claim("relay-a", LEASE, 10);
		store.retryLater(scope.id(), "relay-a", "nack", Duration.ZERO);

		assertThat(store.claim("relay-a", LEASE, 10)).singleElement().extracting(ClaimedScope::attempts).isEqualTo(2);
	}

	@Test
	void deadLetterKeepsTheScopeWithItsErrorAndNeverClaimsItAgain() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		store.claim("relay-a", LEASE, 10);

		assertThat(store.deadLetter(scope.id(), "relay-a", "x".repeat(10_000))).isTrue();

		assertThat(store.claim("relay-a", LEASE, 10)).isEmpty();
		assertThat(store.stats()).isEqualTo(new OutboxStats(0, 0, 0, 1, null, null));
		Map<String, Object> row = stateRow(scope.id());
		assertThat(row).containsEntry("status", "dead");
		assertThat((String) row.get("last_error")).hasSize(StoreStatements.MAX_ERROR_LENGTH);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxMessage(), Long.class))
			.as("messages are kept").isEqualTo(1);
	}

	@Test
	void releaseGivesTheAttemptBackAndMakesTheScopeDue() {
		OutboxScope scope = TestMessages.scope("orders", "m");
		store.write(scope);
		store.claim("relay-a", LEASE, 10);

		assertThat(store.release("relay-b", List.of(scope.id()), Duration.ZERO)).isZero();
		assertThat(store.release("relay-a", List.of(scope.id()), Duration.ZERO)).isEqualTo(1);

		assertThat(stateRow(scope.id())).containsEntry("attempts", 0).containsEntry("lease_owner", null);
		assertThat(store.claim("relay-b", LEASE, 10)).singleElement().extracting(ClaimedScope::attempts).isEqualTo(1);
	}

	@Test
	void redriveMakesDeadScopesPendingWithFreshAttempts() {
		UUID orders1 = dead("orders");
		UUID orders2 = dead("orders");
		UUID payments = dead("payments");
		UUID billing = dead("billing");

		assertThat(store.redrive(List.of(orders1, UUID.randomUUID()))).isEqualTo(1);
		assertThat(stateRow(orders1)).containsEntry("status", "pending").containsEntry("attempts", 0);
		assertThat(store.redriveDestination("payments")).isEqualTo(1);
		assertThat(stateRow(payments)).containsEntry("status", "pending");
		assertThat(stateRow(orders2)).containsEntry("status", "dead");
		assertThat(store.redriveAll()).isEqualTo(2);
		assertThat(store.stats()).extracting(OutboxStats::pendingScopes, OutboxStats::pendingMessages, OutboxStats::dueScopes, OutboxStats::deadScopes)
			.containsExactly(4L, 4L, 4L, 0L);
		assertThat(ids(store.claim("relay-a", LEASE, 10))).containsExactlyInAnyOrder(orders1, orders2, payments, billing);
	}

	@Test
	void emptyCollectionsChangeNothing() {
		assertThat(store.markPublished("relay-a", List.of())).isZero();
		assertThat(store.release("relay-a", Collections.emptySet(), Duration.ZERO)).isZero();
		assertThat(store.redrive(List.of())).isZero();
	}

	@Test
	void claimRejectsImpossibleArguments() {
		assertThatIllegalArgumentException().isThrownBy(() -> store.claim(" ", LEASE, 1)).withMessageContaining("leaseOwner");
		assertThatIllegalArgumentException().isThrownBy(() -> store.claim("a", Duration.ZERO, 1)).withMessageContaining("lease");
		assertThatIllegalArgumentException().isThrownBy(() -> store.claim("a", LEASE, 0)).withMessageContaining("limit");
	}

	private UUID dead(String destination) {
		OutboxScope scope = TestMessages.scope(destination, "m");
		store.write(scope);
		List<ClaimedScope> claimed = store.claim("relay-x", LEASE, 1);
		assertThat(ids(claimed)).containsExactly(scope.id());
		store.deadLetter(scope.id(), "relay-x", "gave up");
		return scope.id();
	}

	private static Map<String, Object> stateRow(UUID id) {
		return jdbc.queryForMap("SELECT * FROM " + schema.tables().qualifiedOutboxState() + " WHERE id = ?", id);
	}

	private static List<UUID> ids(List<ClaimedScope> scopes) {
		Set<UUID> ids = new HashSet<>();
		scopes.forEach((s) -> ids.add(s.id()));
		return new ArrayList<>(ids);
	}

}
