package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestSchema;

/**
 * Ordering keys in the JDBC store: head of line, failures and dead scopes holding back
 * only their key, skip and redrive, commit order under the key lock, the sweep, and the claim's
 * plan.
 */
class OrderingStoreIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static TestSchema schema;

	private static JdbcOutboxStore store;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void createTables() {
		schema = TestSchema.withWaybillTables("ordering");
		store = new JdbcOutboxStore(schema.dataSource(), schema.tables());
		jdbc = new JdbcTemplate(schema.dataSource());
	}

	@AfterAll
	static void dropTables() {
		schema.close();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + " CASCADE");
	}

	@Test
	void onlyTheHeadOfEachKeyIsClaimedAndTheNextAfterItIsPublished() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		OutboxScope b1 = scope("B", "b1");
		OutboxScope b2 = scope("B", "b2");
		OutboxScope free = scope(null, "free");
		List.of(a1, a2, b1, b2, free).forEach(store::write);

		List<ClaimedScope> first = store.claim("relay-a", LEASE, 100);
		assertThat(bodies(first)).containsExactlyInAnyOrder("a1", "b1", "free");
		// Nothing else while the heads are in flight, even for another relay.
		assertThat(store.claim("relay-b", LEASE, 100)).isEmpty();

		assertThat(store.markPublished("relay-a", List.of(a1.id()))).isEqualTo(1);
		assertThat(bodies(store.claim("relay-b", LEASE, 100))).containsExactly("a2");
		assertThat(store.markPublished("relay-a", List.of(b1.id(), free.id()))).isEqualTo(2);
		assertThat(bodies(store.claim("relay-b", LEASE, 100))).containsExactly("b2");
	}

	@Test
	void aFailingScopeHoldsBackOnlyTheLaterScopesOfItsKey() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		OutboxScope b1 = scope("B", "b1");
		OutboxScope b2 = scope("B", "b2");
		List.of(a1, a2, b1, b2).forEach(store::write);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactlyInAnyOrder("a1", "b1");

		// a1 fails and is due again at once: it, not a2, is claimed next; B goes on meanwhile.
		assertThat(store.retryLater(a1.id(), "relay-a", "nack", Duration.ZERO)).isTrue();
		store.markPublished("relay-a", List.of(b1.id()));
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactlyInAnyOrder("a1", "b2");

		// released (the broker's failure): still a1 first
		store.release("relay-a", List.of(a1.id()), Duration.ZERO);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a1");
		store.markPublished("relay-a", List.of(a1.id()));
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
	}

	@Test
	void aDeadScopeBlocksItsKeyUntilRedrivenAndThenGoesFirst() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		OutboxScope b1 = scope("B", "b1");
		List.of(a1, a2, b1).forEach(store::write);
		store.claim("relay-a", LEASE, 100);
		assertThat(store.deadLetter(a1.id(), "relay-a", "poison")).isTrue();
		store.markPublished("relay-a", List.of(b1.id()));
		assertThat(store.claim("relay-a", LEASE, 100)).isEmpty();
		assertThat(store.promoteHeldHeads()).isZero();
		assertThat(store.claim("relay-a", LEASE, 100)).isEmpty();

		assertThat(store.redrive(List.of(a1.id()))).isEqualTo(1);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a1");
		store.markPublished("relay-a", List.of(a1.id()));
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
	}

	@Test
	void skippingADeadScopeReleasesItsKeyAndKeepsItDead() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		OutboxScope a3 = scope("A", "a3");
		List.of(a1, a2, a3).forEach(store::write);
		store.claim("relay-a", LEASE, 100);
		store.deadLetter(a1.id(), "relay-a", "poison");
		assertThat(store.skip(List.of(a2.id()))).as("not dead: ignored").isZero();

		assertThat(store.skip(List.of(a1.id()))).isEqualTo(1);

		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
		Map<String, Object> skipped = jdbc.queryForMap("SELECT status, ordering_key, last_error FROM "
				+ schema.tables().qualifiedOutboxState() + " WHERE id = ?", a1.id());
		assertThat(skipped.get("status")).isEqualTo("dead");
		assertThat(skipped.get("ordering_key")).isNull();
		assertThat((String) skipped.get("last_error")).isEqualTo("[ordering key A skipped] poison");
		// Redriven later, it is unordered: claimable while a2 is in flight.
		store.redrive(List.of(a1.id()));
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a1");
	}

	@Test
	void aTransactionWithSeveralKeysWritesOneScopePerKey() {
		UUID id = UUID.randomUUID();
		OutboxScope mixed = new OutboxScope(id, List.of(message("A", "a1"), message("B", "b1"), message(null, "n1"),
				message("A", "a2")), null, null);
		store.write(scope("A", "a0"));

		store.write(mixed);

		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxState(), Long.class))
			.isEqualTo(4);
		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 100);
		assertThat(claimed).extracting((c) -> bodies(List.of(c)))
			.containsExactlyInAnyOrder(List.of("a0"), List.of("b1"), List.of("n1"));
		store.markPublished("relay-a", claimed.stream().map(ClaimedScope::id).toList());
		assertThat(store.claim("relay-a", LEASE, 100)).singleElement().satisfies((c) -> {
			assertThat(c.id()).isEqualTo(id);
			assertThat(bodies(List.of(c))).containsExactly("a1", "a2");
		});
	}

	@Test
	void writersOfOneKeyTakeTheirPlaceInCommitOrder() throws Exception {
		try (Connection first = schema.dataSource().getConnection();
				Connection second = schema.dataSource().getConnection()) {
			first.setAutoCommit(false);
			second.setAutoCommit(false);
			OutboxScope earlier = scope("A", "earlier");
			OutboxScope later = scope("A", "later");
			store.write(first, earlier);
			// The second writer waits for the key's lock until the first commits.
			CompletableFuture<Integer> secondWrite = CompletableFuture.supplyAsync(() -> {
				try {
					int written = store.write(second, later);
					second.commit();
					return written;
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
				.until(() -> !secondWrite.isDone());
			first.commit();
			assertThat(secondWrite.get(10, TimeUnit.SECONDS)).isEqualTo(1);
			assertThat(jdbc.queryForList("SELECT id FROM " + schema.tables().qualifiedOutboxState()
					+ " ORDER BY ordering_seq", UUID.class)).containsExactly(earlier.id(), later.id());
		}
	}

	@Test
	void theSweepPromotesAHeadThatAStaleSnapshotHeldBack() throws Exception {
		OutboxScope a1 = scope("A", "a1");
		store.write(a1);
		store.claim("relay-a", LEASE, 100);
		try (Connection writer = schema.dataSource().getConnection()) {
			writer.setAutoCommit(false);
			writer.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			writer.createStatement().execute("SELECT 1 FROM " + schema.tables().qualifiedOutboxState()); // snapshot
			assertThat(store.markPublished("relay-a", List.of(a1.id()))).isEqualTo(1);
			store.write(writer, scope("A", "a2")); // sees a1 pending: held
			writer.commit();
		}
		assertThat(store.claim("relay-a", LEASE, 100)).isEmpty();

		assertThat(store.promoteHeldHeads()).isEqualTo(1);

		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
	}

	@Test
	void theClaimAndItsHeadOfLineCheckUseIndexes() {
		for (int i = 0; i < 2000; i++) {
			store.write(scope("key-" + (i % 200), "m" + i));
		}
		jdbc.execute("ANALYZE " + schema.tables().qualifiedOutboxState());
		String claim = new OutboxSql(schema.tables()).claim;
		String plan = String.join("\n", jdbc.queryForList("EXPLAIN " + claim.replaceFirst("LIMIT \\?", "LIMIT 100")
			.replaceFirst("lease_owner = \\?", "lease_owner = 'x'")
			.replace("now() + ? * interval", "now() + 1000 * interval"), String.class));
		// The locking scan (alias s) and the head-of-line probe (alias p); the join back to the
		// claimed rows is by primary key, which a table this small may scan instead.
		assertThat(plan).contains("Index Scan using outbox_state_ready_idx on outbox_state s ")
			.contains("using outbox_state_ordering_idx on outbox_state p ")
			.doesNotContain("Seq Scan on outbox_state s ").doesNotContain("Seq Scan on outbox_state p ");
	}

	@Test
	void markingPublishedReadsOnlyTheMarkedScopesWhateverPlanPostgresKeeps() {
		OutboxScope free = scope(null, "free");
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		List.of(free, a1, a2).forEach(store::write);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactlyInAnyOrder("free", "a1");
		// What each statement reads, whatever the parameters (a generic plan, what a server-prepared
		// statement keeps) and the table's size (sequential scans off: a table this small is read
		// whole): the unkeyed mark, the marked scopes by primary key and nothing else (an earlier
		// mark probed the ordering index first); the keyed one, their keys by primary key as well.
		OutboxSql sql = new OutboxSql(schema.tables());
		String ids = "'{" + free.id() + "," + a1.id() + "}'";
		assertThat(genericPlan(sql.markPublished, "uuid[], text", ids + ", 'relay-a'"))
			.contains("outbox_state_pkey").doesNotContain("InitPlan").doesNotContain("ordering_idx");
		assertThat(genericPlan(sql.markPublishedKeyed, "uuid[], text, uuid[]", ids + ", 'relay-a', " + ids))
			.contains("outbox_state_pkey").contains("pg_advisory_xact_lock").doesNotContain("ordering_idx");

		assertThat(store.markPublished("relay-a", List.of(free.id(), a1.id()))).isEqualTo(2);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
		assertThat(store.markPublished("relay-a", List.of(a2.id()))).isEqualTo(1);
		assertThat(store.markPublished("relay-a", List.of(a2.id()))).as("already published").isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'published'", Long.class)).isEqualTo(3);
	}

	/** The plan PostgreSQL makes of a statement for any parameters (a generic plan). */
	private static String genericPlan(String statement, String types, String arguments) {
		StringBuilder numbered = new StringBuilder();
		int parameter = 0;
		for (char c : statement.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++parameter) : String.valueOf(c));
		}
		return jdbc.execute((org.springframework.jdbc.core.ConnectionCallback<String>) (connection) -> {
			try (java.sql.Statement session = connection.createStatement()) {
				session.execute("SET plan_cache_mode = force_generic_plan");
				session.execute("SET enable_seqscan = off");
				session.execute("PREPARE generic_mark(" + types + ") AS " + numbered);
				try {
					return String.join("\n", new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(
							connection, true)).queryForList("EXPLAIN (VERBOSE, COSTS OFF) EXECUTE generic_mark(" + arguments + ")",
									String.class));
				}
				finally {
					session.execute("DEALLOCATE generic_mark");
					session.execute("RESET plan_cache_mode");
					session.execute("RESET enable_seqscan");
				}
			}
		});
	}

	private static OutboxScope scope(String key, String... bodies) {
		List<OutboxMessage> messages = new ArrayList<>();
		for (String body : bodies) {
			messages.add(message(key, body));
		}
		return new OutboxScope(UUID.randomUUID(), messages, null, null);
	}

	private static OutboxMessage message(String key, String body) {
		Map<String, Object> headers = (key != null) ? Map.of(PublishOptions.ORDERING_KEY_HEADER, key) : Map.of();
		return new OutboxMessage(TimeOrderedUuids.next(), "orders", "", "test.message", "application/json", headers,
				body.getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
	}

	private static List<String> bodies(List<ClaimedScope> scopes) {
		return scopes.stream().flatMap((c) -> c.messages().stream())
			.map((m) -> new String(m.body(), StandardCharsets.UTF_8)).toList();
	}

}
