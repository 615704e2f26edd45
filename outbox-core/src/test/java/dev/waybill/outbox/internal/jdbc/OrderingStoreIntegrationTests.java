package dev.waybill.outbox.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestSchema;

/**
 * Ordering keys in the JDBC store: head of line, a key's run claimed with its head, failures and
 * dead scopes holding back only their key, skip and redrive, commit order under the key lock, the
 * sweep, and the claim's plan.
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
		jdbc.execute("TRUNCATE " + schema.tables().qualifiedOutboxState() + ", " + schema.tables().qualifiedOutboxMessage());
	}

	@Test
	void onlyTheHeadOfEachKeyIsClaimedWhenItsNextGoesElsewhereAndTheNextAfterItIsPublished() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scopeTo("A", "invoices", "a2");
		OutboxScope b1 = scope("B", "b1");
		OutboxScope b2 = scopeTo("B", "invoices", "b2");
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
	void aClaimTakesEachKeysHeadWithItsConsecutiveScopesInOrder() {
		List<OutboxScope> a = List.of(scope("A", "a1"), scope("A", "a2"), scope("A", "a3"));
		OutboxScope b1 = scope("B", "b1");
		OutboxScope free = scope(null, "free");
		OutboxScope b2 = scope("B", "b2");
		a.forEach(store::write);
		List.of(b1, free, b2).forEach(store::write);

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 100);

		assertThat(bodies(claimed)).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2", "free");
		assertThat(bodies(claimed).stream().filter((body) -> body.startsWith("a"))).containsExactly("a1", "a2", "a3");
		assertThat(bodies(claimed).stream().filter((body) -> body.startsWith("b"))).containsExactly("b1", "b2");
		assertThat(claimed).allSatisfy((scope) -> assertThat(scope.attempts()).isOne());
		// A scope written while its key's run is in flight waits for it, whoever claims.
		OutboxScope a4 = scope("A", "a4");
		store.write(a4);
		assertThat(store.claim("relay-b", LEASE, 100)).isEmpty();
		assertThat(store.claim("relay-a", LEASE, 100)).isEmpty();

		// The whole run published: the key's next scope is its head.
		assertThat(store.markPublished("relay-a", a.stream().map(OutboxScope::id).toList())).isEqualTo(3);
		assertThat(bodies(store.claim("relay-b", LEASE, 100))).containsExactly("a4");
	}

	@Test
	void aRunEndsBeforeTheFirstScopeThatIsNotDueIsDeadOrGoesElsewhere() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		OutboxScope a3 = scope("A", "a3");
		OutboxScope a4 = scope("A", "a4");
		OutboxScope b1 = scope("B", "b1");
		OutboxScope b2 = scope("B", "b2");
		OutboxScope b3 = scope("B", "b3");
		OutboxScope c1 = scope("C", "c1");
		OutboxScope c2 = scope("C", "c2");
		OutboxScope c3 = new OutboxScope(UUID.randomUUID(), List.of(new OutboxMessage(TimeOrderedUuids.next(), "orders",
				"eu", "test.message", "application/json", Map.of(PublishOptions.ORDERING_KEY_HEADER, "C"),
				"c3".getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null)), null, null);
		OutboxScope c4 = scope("C", "c4");
		OutboxScope d1 = scope("D", "d1", "d1'");
		OutboxScope d2 = scope("D", "d2");
		OutboxScope e1 = scope("E", "e1");
		OutboxScope e2 = scope("E", "e2", "e2'");
		List.of(a1, a2, a3, a4, b1, b2, b3, c1, c2, c3, c4, d1, d2, e1, e2).forEach(store::write);
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() + interval '1 hour' WHERE id = ?", a3.id());
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET status = 'dead' WHERE id = ?", b2.id());

		List<String> claimed = bodies(store.claim("relay-a", LEASE, 100));

		// not due; dead; another routing key; a head of two messages; a follower of two
		assertThat(claimed).containsExactlyInAnyOrder("a1", "a2", "b1", "c1", "c2", "d1", "d1'", "e1");
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState() + " SET next_attempt_at = now() WHERE id = ?",
				a3.id());
		assertThat(store.claim("relay-b", LEASE, 100)).as("behind a run in flight").isEmpty();
	}

	@Test
	void aRunTakesAtMostTheLimitLessOneBehindItsHead() {
		List<OutboxScope> a = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			a.add(scope("A", "a" + i));
		}
		a.forEach(store::write);
		store.write(scope("B", "b1"));
		store.write(scope("B", "b2"));

		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 3);

		assertThat(bodies(claimed)).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2");
		assertThat(bodies(claimed).stream().filter((body) -> body.startsWith("a"))).containsExactly("a1", "a2", "a3");
		assertThat(bodies(store.claim("relay-a", LEASE, 1))).as("a limit of one: no run").isEmpty();
		store.markPublished("relay-a", claimed.stream().map(ClaimedScope::id).toList());
		assertThat(bodies(store.claim("relay-b", LEASE, 1))).containsExactly("a4");
	}

	@Test
	void aClaimContinuesTheKeysItsClaimerHasInFlightBehindTheirRuns() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope b1 = scope("B", "b1");
		List.of(a1, b1).forEach(store::write);
		assertThat(bodies(store.claim("relay-a/1", LEASE, 100))).containsExactlyInAnyOrder("a1", "b1");
		List.of(scope("A", "a2"), scope("A", "a3"), scopeTo("A", "invoices", "a4"), scope("A", "a5"), scope("B", "b2"))
			.forEach(store::write);

		assertThat(store.claim("relay-b", LEASE, 100)).as("behind runs in flight, without naming them").isEmpty();
		assertThat(continued("relay-x", Set.of("relay-a/9"), a1, true)).as("named by an owner that does not hold them")
			.isEmpty();
		// Only the named key, and its run ends before a scope that goes elsewhere.
		assertThat(bodies(store.claim("relay-a/2", LEASE, 100, Runnable::run, new KeysInFlight(Set.of("relay-a/1"),
				List.of(new KeysInFlight.Key("A", "orders", "", a1.id(), true)))))).containsExactly("a2", "a3");
		assertThat(continued("relay-a/3", Set.of("relay-a/1"), a1, true)).as("behind a run of two owners, naming one")
			.isEmpty();
		assertThat(bodies(store.claim("relay-a/4", LEASE, 100, Runnable::run,
				new KeysInFlight(Set.of("relay-a/1", "relay-a/2"), List.of(new KeysInFlight.Key("A", "orders", "", a1.id(), true),
						new KeysInFlight.Key("B", "orders", "", b1.id(), true))))))
			.as("a4 goes to another destination than the run before it")
			.containsExactly("b2");
		assertThat(store.claim("relay-a/5", LEASE, 5, Runnable::run, new KeysInFlight(Set.of("relay-a/1", "relay-a/2"),
				List.of(new KeysInFlight.Key("A", "invoices", "", a1.id(), true))))).extracting(ClaimedScope::id)
			.as("the key's next scope, to where the claimer names").hasSize(1);
	}

	@Test
	void aKeyIsNotContinuedBehindAScopeThatWaitsForARetryOrWhoseLeaseRanOut() {
		OutboxScope a1 = scope("A", "a1");
		store.write(a1);
		assertThat(bodies(store.claim("relay-a/1", LEASE, 100))).containsExactly("a1");
		List.of(scope("A", "a2"), scope("A", "a3"), scope("A", "a4")).forEach(store::write);
		assertThat(bodies(continued("relay-a/2", Set.of("relay-a/1"), a1, true)))
			.as("a1 in flight and a2 taken: the limit")
			.containsExactly("a2");

		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState()
				+ " SET lease_until = now() - interval '1 second', next_attempt_at = now() - interval '1 second' WHERE id = ?",
				a1.id());
		assertThat(continued("relay-a/3", Set.of("relay-a/1", "relay-a/2"), a1, true))
			.as("a1's lease ran out: the claimer that has the key in flight takes neither its head nor what follows")
			.isEmpty();
		assertThat(bodies(store.claim("relay-b", LEASE, 100))).as("another claimer takes the head, a2 is held")
			.containsExactly("a1");

		assertThat(store.retryLater(a1.id(), "relay-b", "nack", Duration.ofHours(1))).isTrue();
		assertThat(continued("relay-a/4", Set.of("relay-a/2"), a1, true)).as("a1 waits for a retry").isEmpty();
	}

	@Test
	void aKeyInFlightThatMayNotBeContinuedIsNotClaimedAtAllByItsClaimer() {
		OutboxScope a1 = scope("A", "a1");
		store.write(a1);
		assertThat(bodies(store.claim("relay-a/1", LEASE, 100))).containsExactly("a1");
		store.write(scope("A", "a2"));
		assertThat(continued("relay-a/2", Set.of("relay-a/1"), a1, false)).isEmpty();
		jdbc.update("UPDATE " + schema.tables().qualifiedOutboxState()
				+ " SET lease_owner = NULL, lease_until = NULL, next_attempt_at = now() WHERE id = ?", a1.id());
		assertThat(continued("relay-a/3", Set.of("relay-a/1"), a1, false)).as("a1 given back, its key still in flight")
			.isEmpty();
		assertThat(bodies(store.claim("relay-a/4", LEASE, 100))).containsExactly("a1", "a2");
	}

	@Test
	void aScopeClaimedBehindItsKeysRunIsNotPromotedWhileHeldAndIsItsKeysHeadOnceRetried() {
		OutboxScope a1 = scope("A", "a1");
		store.write(a1);
		assertThat(bodies(store.claim("relay-a/1", LEASE, 100))).containsExactly("a1");
		OutboxScope a2 = scope("A", "a2");
		store.write(a2);
		assertThat(bodies(continued("relay-a/2", Set.of("relay-a/1"), a1, true))).containsExactly("a2");

		assertThat(store.markPublished("relay-a/1", List.of(a1.id()))).isOne();
		assertThat(held(a2)).as("claimed already: its promotion would be a write for nothing").isTrue();

		assertThat(store.retryLater(a2.id(), "relay-a/2", "nack", Duration.ZERO)).isTrue();
		assertThat(held(a2)).isFalse();
		assertThat(bodies(store.claim("relay-b", LEASE, 100))).as("the key's head, for any claimer").containsExactly("a2");
	}

	private static boolean held(OutboxScope scope) {
		return Boolean.TRUE.equals(jdbc.queryForObject("SELECT ordering_held FROM " + schema.tables().qualifiedOutboxState()
				+ " WHERE id = ?", Boolean.class, scope.id()));
	}

	/** Claims with a limit of two, the key A in flight from {@code from} on under {@code inFlightOwners}. */
	private static List<ClaimedScope> continued(String owner, Set<String> inFlightOwners, OutboxScope from,
			boolean continuable) {
		return store.claim(owner, LEASE, 2, Runnable::run, new KeysInFlight(inFlightOwners,
				List.of(new KeysInFlight.Key("A", "orders", "", from.id(), continuable))));
	}

	@Test
	void aFailingScopeHoldsBackOnlyTheLaterScopesOfItsKey() {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scopeTo("A", "invoices", "a2");
		OutboxScope b1 = scope("B", "b1");
		OutboxScope b2 = scopeTo("B", "invoices", "b2");
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
		OutboxScope a2 = scopeTo("A", "invoices", "a2");
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
		OutboxScope a2 = scopeTo("A", "invoices", "a2");
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
	void aPublicationDoesNotWaitForTheKeysWritersWhileTheKeyHasAScopeLeft() throws Exception {
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scope("A", "a2");
		store.write(a1);
		store.write(a2);
		assertThat(bodies(store.claim("relay-a", LEASE, 1))).containsExactly("a1");
		try (Connection writer = schema.dataSource().getConnection()) {
			writer.setAutoCommit(false);
			store.write(writer, scope("A", "a3")); // holds the key's lock until it commits

			CompletableFuture<Integer> mark = CompletableFuture
				.supplyAsync(() -> store.markPublished("relay-a", List.of(a1.id())));

			assertThat(mark.get(10, TimeUnit.SECONDS)).as("marked while the writer is still open").isEqualTo(1);
			assertThat(bodies(store.claim("relay-a", LEASE, 1))).as("the next head, promoted").containsExactly("a2");
			writer.commit();
		}
		assertThat(store.markPublished("relay-a", List.of(a2.id()))).isEqualTo(1);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a3");
	}

	@Test
	void aWriterCommittingWhileItsKeyDrainsIsPromotedByThePublicationNotTheSweep() throws Exception {
		OutboxScope a1 = scope("A", "a1");
		store.write(a1);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a1");
		try (Connection writer = schema.dataSource().getConnection()) {
			writer.setAutoCommit(false);
			store.write(writer, scope("A", "a2")); // sees a1 pending: held, and holds the key's lock

			CompletableFuture<Integer> mark = CompletableFuture
				.supplyAsync(() -> store.markPublished("relay-a", List.of(a1.id())));

			// the key has nothing unpublished left but what the open writer holds: the publication
			// waits for it, so as to promote its scope
			Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !mark.isDone());
			writer.commit();
			assertThat(mark.get(10, TimeUnit.SECONDS)).isEqualTo(1);
		}
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
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
		String plan = claimPlan();
		// The locking scan (alias s) and the head-of-line probe (alias p); the join back to the
		// claimed rows is by primary key, which a table this small may scan instead.
		assertThat(plan).contains("Index Scan using outbox_state_ready_idx on outbox_state s ")
			.contains("using outbox_state_ordering_idx on outbox_state p ")
			.doesNotContain("Seq Scan on outbox_state s ").doesNotContain("Seq Scan on outbox_state p ");
	}

	@Test
	void aRunIsReadFromTheOrderingIndexInOrderWithoutSortingItsKeysBacklog() {
		String state = schema.tables().qualifiedOutboxState();
		jdbc.execute("""
				WITH scope AS (
				  INSERT INTO %1$s (id, created_at, next_attempt_at, message_count, ordering_key, ordering_seq, ordering_held)
				  SELECT gen_random_uuid(), clock_timestamp(), now(), 1, CASE WHEN i %% 10 = 0 THEN 'key-' || i ELSE 'hot' END,
				         nextval('%3$s'), i > 1 AND i %% 10 <> 0
				  FROM generate_series(1, 50000) i ORDER BY i
				  RETURNING id, ordering_key
				)
				INSERT INTO %2$s (outbox_id, message_id, destination, routing_key, message_type, content_type, headers,
				                  body, created_at)
				SELECT s.id, gen_random_uuid(), 'orders', '', 'test.message', 'application/json',
				       jsonb_build_object('waybill-ordering-key', s.ordering_key), '\\x7b7d', now()
				FROM scope s""".formatted(state, schema.tables().qualifiedOutboxMessage(),
				schema.tables().orderingSequence()));
		jdbc.execute("ANALYZE " + state);
		jdbc.execute("ANALYZE " + schema.tables().qualifiedOutboxMessage());

		// With the parameters known and, as a prepared statement may keep, without: the key's next
		// scopes come from the ordering index in its order, as many as the run takes.
		for (String plan : List.of(claimPlan(), genericClaimPlan())) {
			assertThat(plan).contains("Index Scan using outbox_state_ordering_idx on outbox_state f")
				.doesNotContain("Bitmap Heap Scan on outbox_state f").doesNotContain("Seq Scan on outbox_state f");
			assertThat(plan.lines().filter((line) -> line.contains("Sort Key: f.ordering_seq"))).isEmpty();
		}
		List<ClaimedScope> claimed = store.claim("relay-a", LEASE, 100);
		assertThat(claimed.stream().filter((scope) -> "hot".equals(scope.messages().get(0).orderingKey())))
			.hasSize(100);
	}

	@Test
	void markingPublishedReadsOnlyTheMarkedScopesWhateverPlanPostgresKeeps() {
		OutboxScope free = scope(null, "free");
		OutboxScope a1 = scope("A", "a1");
		OutboxScope a2 = scopeTo("A", "invoices", "a2");
		List.of(free, a1, a2).forEach(store::write);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactlyInAnyOrder("free", "a1");
		// What each statement reads, whatever the parameters (a generic plan, what a server-prepared
		// statement keeps) and the table's size (sequential scans off: a table this small is read
		// whole): the mark, the marked scopes by primary key and nothing else (an earlier mark probed
		// the ordering index first, and took the keys' locks); the promotion after it and its look for
		// keys left with nothing unpublished, the ordering index.
		OutboxSql sql = new OutboxSql(schema.tables());
		String ids = "'{" + free.id() + "," + a1.id() + "}'";
		assertThat(genericPlan(sql.markPublished, "uuid[], text", ids + ", 'relay-a'")).contains("outbox_state_pkey")
			.doesNotContain("InitPlan").doesNotContain("ordering_idx").doesNotContain("pg_advisory_xact_lock");
		assertThat(genericPlan(sql.promoteAfterPublish, "text[], text[]", "'{A}', '{A}'"))
			.contains("outbox_state_ordering_idx").doesNotContain("Seq Scan");

		assertThat(store.markPublished("relay-a", List.of(free.id(), a1.id()))).isEqualTo(2);
		assertThat(bodies(store.claim("relay-a", LEASE, 100))).containsExactly("a2");
		assertThat(store.markPublished("relay-a", List.of(a2.id()))).isEqualTo(1);
		assertThat(store.markPublished("relay-a", List.of(a2.id()))).as("already published").isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'published'", Long.class)).isEqualTo(3);
	}

	/** The claim's plan for a batch of 100, its parameters written in. */
	private static String claimPlan() {
		String claim = new OutboxSql(schema.tables()).claim;
		return String.join("\n", jdbc.queryForList("EXPLAIN " + claim.replaceFirst("LIMIT \\?", "LIMIT 100")
			.replace("?::text[], ?::text[], ?::text[], ?::uuid[], ?::boolean[]",
					"'{hot}'::text[], '{orders}'::text[], '{\"\"}'::text[], ARRAY[gen_random_uuid()], '{true}'::boolean[]")
			.replace("?::text[]", "'{x}'::text[]")
			.replace("?::int", "100")
			.replaceFirst("lease_owner = \\?", "lease_owner = 'x'")
			.replace("now() + ? * interval", "now() + 1000 * interval"), String.class));
	}

	/** The claim's generic plan, the one PostgreSQL makes for any parameters. */
	private static String genericClaimPlan() {
		return genericPlan(new OutboxSql(schema.tables()).claim, "text[], int, int, text[], text[], text[], uuid[], boolean[], text[], int, text, int8, int8",
				"'{hot}', 100, 100, '{hot}', '{orders}', '{\"\"}', ARRAY[gen_random_uuid()], '{true}', '{x}', 100, 'x', 1000, 1000",
				"EXPLAIN");
	}

	/**
	 * The plan PostgreSQL makes of a statement for any parameters (a generic plan), sequential scans
	 * off (a table this small is read whole).
	 */
	private static String genericPlan(String statement, String types, String arguments) {
		return genericPlan(statement, types, arguments, "SET enable_seqscan = off; EXPLAIN (VERBOSE, COSTS OFF)");
	}

	private static String genericPlan(String statement, String types, String arguments, String explain) {
		StringBuilder numbered = new StringBuilder();
		int parameter = 0;
		for (char c : statement.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++parameter) : String.valueOf(c));
		}
		int settings = explain.lastIndexOf(';');
		return jdbc.execute((org.springframework.jdbc.core.ConnectionCallback<String>) (connection) -> {
			try (java.sql.Statement session = connection.createStatement()) {
				session.execute("SET plan_cache_mode = force_generic_plan");
				if (settings >= 0) {
					session.execute(explain.substring(0, settings));
				}
				session.execute("PREPARE generic_plan(" + types + ") AS " + numbered);
				try {
					return String.join("\n", new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(
							connection, true)).queryForList(explain.substring(settings + 1).trim() + " EXECUTE generic_plan("
									+ arguments + ")", String.class));
				}
				finally {
					session.execute("DEALLOCATE generic_plan");
					session.execute("RESET ALL");
				}
			}
		});
	}

	private static OutboxScope scope(String key, String... bodies) {
		return scopeTo(key, "orders", bodies);
	}

	private static OutboxScope scopeTo(String key, String destination, String... bodies) {
		List<OutboxMessage> messages = new ArrayList<>();
		for (String body : bodies) {
			messages.add(message(key, destination, body));
		}
		return new OutboxScope(UUID.randomUUID(), messages, null, null);
	}

	private static OutboxMessage message(String key, String body) {
		return message(key, "orders", body);
	}

	private static OutboxMessage message(String key, String destination, String body) {
		Map<String, Object> headers = (key != null) ? Map.of(PublishOptions.ORDERING_KEY_HEADER, key) : Map.of();
		return new OutboxMessage(TimeOrderedUuids.next(), destination, "", "test.message", "application/json", headers,
				body.getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
	}

	private static List<String> bodies(List<ClaimedScope> scopes) {
		return scopes.stream().flatMap((c) -> c.messages().stream())
			.map((m) -> new String(m.body(), StandardCharsets.UTF_8)).toList();
	}

}
