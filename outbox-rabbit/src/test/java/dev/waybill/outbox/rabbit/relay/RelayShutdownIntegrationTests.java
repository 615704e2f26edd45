package dev.waybill.outbox.rabbit.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.rabbit.RabbitTransport;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.Relay;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.relay.RelaySettings;
import dev.waybill.outbox.relay.RetryPolicy;
import dev.waybill.outbox.support.OutboxBacklog;
import dev.waybill.outbox.support.RelayWakeUp;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestSchema;

/**
 * A relay stopped while it holds scopes it could not publish gives them back: another instance
 * can take them at once instead of after their leases.
 */
class RelayShutdownIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(60);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private JdbcOutboxStore store;

	private TestTopology topology;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("relayshutdown");
		this.store = new JdbcOutboxStore(this.schema.dataSource(), this.schema.tables());
		this.topology = TestRabbit.get().topology("relay-shutdown");
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.topology.close();
		this.schema.close();
	}

	@Test
	void aRelayStoppedWhileItCannotPublishGivesBackTheScopesItClaimedDueAtOnce() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TcpProxy proxy = TestRabbit.get().proxy();
		RabbitTransport transport = TestRabbit.get().transport(proxy).build();
		this.resources.add(transport);
		this.resources.add(proxy); // closed first, so the blocked writes fail and the transport can close
		// The broker stops answering: the worker's publishes fill the socket and block, so the
		// scopes it claimed are neither published nor failed when the relay stops.
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 5, 0);
		RelaySettings settings = new RelaySettings(1, 40, LEASE, Duration.ofMillis(200), Duration.ofMillis(500), retry, 3,
				Duration.ofSeconds(1));
		RelayWakeUp wakeUp = new RelayWakeUp();
		Relay relay = new Relay(this.store, transport, wakeUp, settings, RelayListener.NONE, new OutboxBacklog());
		Set<Thread> relayThreads = ConcurrentHashMap.newKeySet();
		relay.start();
		this.resources.add(relay::stop);
		Thread.getAllStackTraces().keySet().stream().filter((t) -> t.getName().startsWith("waybill-relay")).forEach(relayThreads::add);
		assertThat(relayThreads).extracting(Thread::getName)
			.contains("waybill-relay-settler", "waybill-relay-leases", "waybill-relay-0");

		// the worker's channel is open before the broker stops answering
		this.store.write(TestMessages.scope(queue.exchange(), "\"first\""));
		wakeUp.signal();
		queue.next();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> this.store.stats().pendingScopes() == 0);

		proxy.pause();
		String body = "\"" + "x".repeat(1024 * 1024) + "\"";
		for (int i = 0; i < 40; i++) {
			this.store.write(TestMessages.scope(queue.exchange(), body));
		}
		wakeUp.signal();
		// 40 MB: more than the socket buffers hold, so the batch's publishing blocks
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> leased() > 0);

		relay.stop();

		assertThat(leased()).as("scopes still under the stopped relay's lease").isZero();
		assertThat(due()).as("pending scopes due at once").isEqualTo(40);
		assertThat(jdbc().queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending'",
				Integer.class)).as("no attempt counted").isZero();
	}

	private int leased() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending' AND lease_owner IS NOT NULL AND lease_until > now()", Integer.class);
	}

	private int due() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'pending' AND lease_owner IS NULL AND next_attempt_at <= now()", Integer.class);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

}
