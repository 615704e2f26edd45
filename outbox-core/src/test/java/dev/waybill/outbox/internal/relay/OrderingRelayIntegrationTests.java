package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.RetryPolicy.Strategy;
import dev.waybill.outbox.internal.DefaultOutboxAdmin;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.FakeTransport.Behaviour;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay with ordering keys, against PostgreSQL and a broker whose failures the test
 * controls per destination or message: a failing scope holds back only its key; a dead one blocks
 * its key until skipped, or not at all under {@link DeadScopePolicy#SKIP}; a key's run goes out in
 * one go, each message behind the first naming its predecessor, and counts only up to its first
 * refused message; a key's next scopes go out behind a run still awaiting its confirms.
 */
class OrderingRelayIntegrationTests {

	private static final RetryPolicy PATIENT_RETRY = new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofMillis(50), 2,
			Duration.ofMillis(200), 1000, 0);

	private final List<Relay> relays = new ArrayList<>();

	private TestSchema schema;

	private JdbcOutboxStore store;

	private FakeTransport broker;

	private final RelayWakeUp wakeUp = new RelayWakeUp();

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("ordering_relay");
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
	void aScopeThatKeepsFailingHoldsBackOnlyTheLaterScopesOfItsKey() {
		this.broker.behave("flaky", Behaviour.NACK);
		write("A", "flaky", "a1");
		write("A", "ok", "a2");
		write("A", "ok", "a3");
		write("B", "ok", "b1");
		write("B", "ok", "b2");
		write(null, "ok", "free");
		start(DeadScopePolicy.BLOCK);

		Awaitility.await().until(() -> delivered().containsAll(List.of("b1", "b2", "free")));
		Awaitility.await().until(() -> this.broker.attempts("flaky").size() >= 3);
		assertThat(delivered()).containsExactlyInAnyOrder("b1", "b2", "free");

		this.broker.behave("flaky", Behaviour.CONFIRM);

		Awaitility.await().until(() -> delivered().size() == 6);
		List<String> order = delivered();
		assertThat(order.indexOf("a1")).isLessThan(order.indexOf("a2"));
		assertThat(order.indexOf("a2")).isLessThan(order.indexOf("a3"));
		assertThat(order.indexOf("b1")).isLessThan(order.indexOf("b2"));
	}

	@Test
	void aDeadScopeBlocksItsKeyUntilAnOperatorSkipsIt() {
		this.broker.behave("poison", Behaviour.PERMANENT);
		OutboxScope a1 = write("A", "poison", "a1");
		write("A", "ok", "a2");
		write("B", "ok", "b1");
		start(DeadScopePolicy.BLOCK);

		Awaitility.await().until(() -> delivered().contains("b1") && this.store.stats().deadScopes() == 1);
		Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
			.until(() -> !delivered().contains("a2"));

		DefaultOutboxAdmin admin = new DefaultOutboxAdmin(this.store, new RelayWakeUp());
		assertThat(admin.skip(List.of(a1.id()))).isOne();

		Awaitility.await().until(() -> delivered().contains("a2"));
		assertThat(this.store.stats().deadScopes()).as("the skipped scope stays dead").isOne();
	}

	@Test
	void underTheSkipPolicyADeadScopeDoesNotBlockItsKey() {
		this.broker.behave("poison", Behaviour.PERMANENT);
		write("A", "poison", "a1");
		write("A", "ok", "a2");
		start(DeadScopePolicy.SKIP);

		Awaitility.await().until(() -> delivered().contains("a2"));
		assertThat(this.store.stats().deadScopes()).isOne();
	}

	@Test
	void aKeysRunGoesOutInOneGoAndAFailureInItsMiddleRepublishesTheKeyFromThere() {
		List<OutboxScope> a = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			a.add(write("A", "ok", "a" + i));
		}
		List<OutboxScope> b = List.of(write("B", "ok", "b1"), write("B", "ok", "b2"), write("B", "ok", "b3"));
		this.broker.nackOnce(messageId(a.get(2)));
		List<UUID> published = new CopyOnWriteArrayList<>();
		start(DeadScopePolicy.BLOCK, new RelayListener() {

			@Override
			public void published(ClaimedScope scope, Instant confirmedAt) {
				published.add(scope.id());
			}

		});

		Awaitility.await().until(() -> published.size() == 8);

		// a4 and a5 went out behind a3, and the broker took them; a3's nack kept them from counting,
		// so they went out again after a3.
		assertThat(a.subList(3, 5)).allSatisfy((scope) -> assertThat(deliveries(scope)).isEqualTo(2));
		assertThat(a.subList(0, 2)).allSatisfy((scope) -> assertThat(deliveries(scope)).isOne());
		assertThat(b).allSatisfy((scope) -> assertThat(deliveries(scope)).isOne());
		assertThat(this.broker.attempts().stream().filter((attempt) -> attempt.messageId().equals(messageId(a.get(2)))))
			.hasSize(2);
		assertThat(published).containsExactlyInAnyOrderElementsOf(Stream.concat(a.stream(), b.stream())
			.map(OutboxScope::id).toList());
		// At the broker, the deliveries that counted are in their key's order.
		List<UUID> counted = lastDeliveries();
		assertThat(counted.stream().filter(messageIds(a)::contains)).containsExactlyElementsOf(messageIds(a));
		assertThat(counted.stream().filter(messageIds(b)::contains)).containsExactlyElementsOf(messageIds(b));
		Awaitility.await().until(() -> this.store.stats().pendingScopes() == 0);
	}

	@Test
	void aKeysNextScopeGoesOutWhileTheScopeBeforeItAwaitsItsConfirm() {
		OutboxScope a1 = write("A", "ok", "a1");
		CompletableFuture<Behaviour> a1Answer = startAwaitingAnswer(a1);

		OutboxScope a2 = write("A", "ok", "a2");
		OutboxScope a3 = write("A", "ok", "a3");
		this.wakeUp.signal();

		// behind a1, on the same channel, each naming its predecessor, before a1 is confirmed
		Awaitility.await().until(() -> published(a3) == 1);
		assertThat(delivered()).containsExactly("a2", "a3");
		assertThat(previous(a2)).isEqualTo(messageId(a1).toString());
		assertThat(previous(a3)).isEqualTo(messageId(a2).toString());
		assertThat(this.store.stats().pendingScopes()).as("none counted before a1 is").isEqualTo(3);

		a1Answer.complete(Behaviour.CONFIRM);
		Awaitility.await().until(() -> this.store.stats().pendingScopes() == 0);
		assertThat(this.broker.attempts()).extracting(FakeTransport.Attempt::messageId)
			.containsExactly(messageId(a1), messageId(a2), messageId(a3));
	}

	@Test
	void aRefusalBehindWhichTheKeyWentOnRepublishesTheKeyFromTheRefusedScope() {
		OutboxScope a1 = write("A", "ok", "a1");
		CompletableFuture<Behaviour> a1Answer = startAwaitingAnswer(a1);
		OutboxScope a2 = write("A", "ok", "a2");
		this.wakeUp.signal();
		Awaitility.await().until(() -> delivered().contains("a2"));

		a1Answer.complete(Behaviour.NACK);

		Awaitility.await().until(() -> this.store.stats().pendingScopes() == 0);
		assertThat(published(a1)).isEqualTo(2);
		assertThat(published(a2)).as("taken by the broker after a1 was refused: not counted, published again")
			.isEqualTo(2);
		assertThat(lastDeliveries()).containsExactly(messageId(a1), messageId(a2));
	}

	@Test
	void aKeyStopsGoingOnAtItsFirstRefusalEvenWhileTheScopesBeforeItAwaitTheirConfirms() {
		OutboxScope a1 = write("A", "ok", "a1");
		CompletableFuture<Behaviour> a1Answer = startAwaitingAnswer(a1);
		OutboxScope a2 = write("A", "ok", "a2");
		this.broker.nackOnce(messageId(a2));
		this.wakeUp.signal();
		Awaitility.await().until(() -> published(a2) == 1);

		OutboxScope a3 = write("A", "ok", "a3");
		this.wakeUp.signal();
		Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.until(() -> published(a3) == 0);

		a1Answer.complete(Behaviour.CONFIRM);
		Awaitility.await().until(() -> this.store.stats().pendingScopes() == 0);
		assertThat(lastDeliveries()).containsExactly(messageId(a1), messageId(a2), messageId(a3));
	}

	@Test
	void aMessagePublishedBehindItsKeysPreviousOneNamesIt() {
		OutboxScope a1 = write("A", "ok", "a1");
		OutboxScope a2 = write("A", "ok", "a2");
		OutboxScope a3 = write("A", "ok", "a3");
		OutboxScope b1 = write("B", "ok", "b1");
		OutboxScope free = write(null, "ok", "free");
		start(DeadScopePolicy.BLOCK);

		Awaitility.await().until(() -> delivered().size() == 5);

		Map<UUID, Object> previous = new HashMap<>();
		this.broker.delivered().forEach((message) -> previous.put(message.messageId(),
				message.headers().getOrDefault(PublishOptions.ORDERING_PREVIOUS_HEADER, "none")));
		assertThat(previous).containsEntry(messageId(a1), "none")
			.containsEntry(messageId(a2), messageId(a1).toString())
			.containsEntry(messageId(a3), messageId(a2).toString())
			.containsEntry(messageId(b1), "none")
			.containsEntry(messageId(free), "none");
	}

	private void start(DeadScopePolicy policy) {
		start(policy, RelayListener.NONE);
	}

	private void start(DeadScopePolicy policy, RelayListener listener) {
		RelaySettings settings = new RelaySettings(2, 20, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofSeconds(2), PATIENT_RETRY, 3, Duration.ofSeconds(1));
		Relay relay = new Relay(this.store, this.broker, this.wakeUp, settings, listener,
				new OutboxBacklog());
		relay.setDeadScopePolicy(policy);
		this.relays.add(relay);
		relay.start();
	}

	private OutboxScope write(String key, String destination, String body) {
		Map<String, Object> headers = (key != null) ? Map.of(PublishOptions.ORDERING_KEY_HEADER, key) : Map.of();
		OutboxMessage message = new OutboxMessage(TimeOrderedUuids.next(), destination, "", "test.message",
				"application/json", headers, body.getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
		OutboxScope scope = new OutboxScope(UUID.randomUUID(), List.of(message), null, null);
		this.store.write(scope);
		return scope;
	}

	private static UUID messageId(OutboxScope scope) {
		return scope.messages().get(0).messageId();
	}

	private static List<UUID> messageIds(List<OutboxScope> scopes) {
		return scopes.stream().map(OrderingRelayIntegrationTests::messageId).toList();
	}

	/** Starts a relay, holding the broker's answer to the scope's message until the test gives it. */
	private CompletableFuture<Behaviour> startAwaitingAnswer(OutboxScope scope) {
		CompletableFuture<Behaviour> answer = this.broker.hold(messageId(scope));
		start(DeadScopePolicy.BLOCK);
		Awaitility.await().until(() -> published(scope) == 1);
		return answer;
	}

	private long published(OutboxScope scope) {
		return this.broker.attempts().stream().filter((attempt) -> attempt.messageId().equals(messageId(scope))).count();
	}

	private Object previous(OutboxScope scope) {
		return this.broker.delivered().stream().filter((m) -> m.messageId().equals(messageId(scope))).findFirst()
			.orElseThrow().headers().getOrDefault(PublishOptions.ORDERING_PREVIOUS_HEADER, "none");
	}

	private long deliveries(OutboxScope scope) {
		return this.broker.delivered().stream().filter((m) -> m.messageId().equals(messageId(scope))).count();
	}

	/** The broker's deliveries, each message where it was delivered last. */
	private List<UUID> lastDeliveries() {
		List<UUID> order = new ArrayList<>();
		this.broker.delivered().forEach((message) -> {
			order.remove(message.messageId());
			order.add(message.messageId());
		});
		return order;
	}

	private List<String> delivered() {
		return this.broker.delivered().stream().map((m) -> new String(m.body(), StandardCharsets.UTF_8)).toList();
	}

}
