package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.FakeTransport;
import dev.waybill.outbox.test.FakeTransport.Behaviour;
import dev.waybill.outbox.test.TestSchema;

/**
 * The relay with ordering keys, against PostgreSQL and a broker whose failures the test
 * controls per destination: a failing scope holds back only its key; a dead one blocks its key
 * until skipped, or not at all under {@link DeadScopePolicy#SKIP}.
 */
class OrderingRelayIntegrationTests {

	private static final RetryPolicy PATIENT_RETRY = new RetryPolicy(Strategy.EXPONENTIAL, Duration.ofMillis(50), 2,
			Duration.ofMillis(200), 1000, 0);

	private final List<Relay> relays = new ArrayList<>();

	private TestSchema schema;

	private JdbcOutboxStore store;

	private FakeTransport broker;

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

	private void start(DeadScopePolicy policy) {
		RelaySettings settings = new RelaySettings(2, 20, Duration.ofSeconds(60), Duration.ofMillis(200),
				Duration.ofSeconds(2), PATIENT_RETRY, 3, Duration.ofSeconds(1));
		Relay relay = new Relay(this.store, this.broker, new RelayWakeUp(), settings, RelayListener.NONE,
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

	private List<String> delivered() {
		return this.broker.delivered().stream().map((m) -> new String(m.body(), StandardCharsets.UTF_8)).toList();
	}

}
