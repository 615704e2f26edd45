package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WireFaultProxy;
import dev.waybill.outbox.test.WireFaultProxy.Fault;

/**
 * A relay whose acknowledgements are lost on the wire ({@link WireFaultProxy}): PostgreSQL committed
 * the mark (published) but its reply never arrived, or the broker took a message but its confirm never
 * arrived.
 */
class RelayAcknowledgementLossIntegrationTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final List<String> published = new CopyOnWriteArrayList<>();

	private final List<String> released = new CopyOnWriteArrayList<>();

	private final List<String> dead = new CopyOnWriteArrayList<>();

	private TestSchema schema;

	private TestTopology topology;

	private TestOutbox writer;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("relay_ack_loss");
		this.topology = TestRabbit.get().topology("relay-ack-loss");
		this.writer = TestOutbox.on(this.schema);
	}

	@AfterEach
	void tearDown() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			try {
				this.resources.get(i).close();
			}
			catch (Exception ex) {
				// best effort
			}
		}
		this.topology.close();
		this.schema.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aMarkWhoseCommitReplyIsLostIsRecordedOnceAndTold(Fault fault) throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		List<String> delivered = consume(queue);
		WireFaultProxy database = postgresProxy();
		database.loseReply((sql) -> sql.contains("status = 'published'"), fault);
		CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox");
		this.resources.add(logs);
		RelayWakeUp wakeUp = new RelayWakeUp();
		startRelay(TestOutbox.on(pool(database), this.schema.tables()).store(), TestRabbit.get().transport().build(),
				wakeUp);
		OutboxScope scope = TestMessages.scope(queue.exchange(), "marked once");
		this.writer.writer().write(scope);
		wakeUp.signal();

		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> this.writer.store().stats().pendingScopes() == 0);
		// The mark is tried again once the lost connection is noticed (at once, or after socketTimeout).
		Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> logs.events().stream()
			.anyMatch((event) -> event.getFormattedMessage().contains("recorded the delivery outcomes again")));
		Awaitility.await().pollDelay(Duration.ofSeconds(1)).until(() -> true); // a republish would arrive by now
		assertThat(database.fired()).isOne();
		assertThat(delivered).as("published once").hasSize(1);
		Map<String, Object> state = state();
		assertThat(state.get("status")).as(state.toString()).isEqualTo("published");
		assertThat(state.get("attempts")).as(state.toString()).isEqualTo(1);
		assertThat(this.published).as("the listener (metrics, tracing) is told it was published").hasSize(1);
		assertThat(logs.atLeast(Level.WARN)).as(CapturedLogs.describe(logs.atLeast(Level.WARN)))
			.noneMatch((event) -> event.getFormattedMessage().contains("lost the lease"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aDeadLetterWhoseCommitReplyIsLostIsLoggedAndToldOnce(Fault fault) throws Exception {
		WireFaultProxy database = postgresProxy();
		database.loseReply((sql) -> sql.contains("SET status = 'dead', last_error = $1, lease_owner"), fault);
		CapturedLogs logs = CapturedLogs.capture(Level.INFO, "dev.waybill.outbox");
		this.resources.add(logs);
		RelayWakeUp wakeUp = new RelayWakeUp();
		// One attempt: the first failure (an exchange that does not exist) is the scope's death.
		startRelay(TestOutbox.on(pool(database), this.schema.tables()).store(), TestRabbit.get().transport().build(),
				wakeUp, new RetryPolicy(RetryPolicy.Strategy.FIXED, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 1, 0));
		this.writer.writer().write(TestMessages.scope(this.topology.uniqueName("missing"), "dies once"));
		wakeUp.signal();

		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> this.writer.store().stats().deadScopes() == 1);
		Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> logs.events().stream()
			.anyMatch((event) -> event.getFormattedMessage().contains("recorded the delivery outcomes again")));
		assertThat(database.fired()).isOne();
		assertThat(this.dead).as("the listener (waybill.outbox.dead-lettered, tracing) is told").hasSize(1);
		assertThat(logs.atLeast(Level.ERROR)).as(CapturedLogs.describe(logs.atLeast(Level.WARN)))
			.filteredOn((event) -> event.getFormattedMessage().contains("is dead after"))
			.hasSize(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aLostConfirmRepublishesWithTheSameMessageIdAndCostsNoAttempt(Fault fault) throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		List<String> delivered = consume(queue);
		WireFaultProxy broker = WireFaultProxy.amqp(TestRabbit.get().host(), TestRabbit.get().port());
		this.resources.add(broker);
		broker.loseBrokerAck(fault);
		Transport transport = TestRabbit.get().transport(broker.host(), broker.port())
			.confirmTimeout(Duration.ofSeconds(2))
			.recoveryInterval(Duration.ofMillis(200))
			.customizer((factory) -> factory.setRequestedHeartbeat(2))
			.build();
		RelayWakeUp wakeUp = new RelayWakeUp();
		startRelay(TestOutbox.on(this.schema).store(), transport, wakeUp);
		OutboxScope scope = TestMessages.scope(queue.exchange(), "confirm lost");
		this.writer.writer().write(scope);
		wakeUp.signal();

		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> this.writer.store().stats().pendingScopes() == 0);
		Awaitility.await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
		assertThat(broker.fired()).isOne();
		String id = scope.messages().get(0).messageId().toString();
		assertThat(delivered).as("at least once, each copy with the message's own id").hasSize(2).containsOnly(id);
		Map<String, Object> state = state();
		assertThat(state.get("status")).as(state.toString()).isEqualTo("published");
		// Given back at least once; again when a republish meets the connection's recovery, which
		// costs no attempt either.
		assertThat(this.released).as("given back as unavailable, not failed").isNotEmpty();
		assertThat(state.get("attempts")).as("the lost confirm cost no attempt: " + state).isEqualTo(1);
	}

	private Map<String, Object> state() {
		return new JdbcTemplate(this.schema.dataSource()).queryForMap("SELECT status, attempts, last_error FROM "
				+ this.schema.tables().qualifiedOutboxState());
	}

	private void startRelay(OutboxStore store, Transport transport, RelayWakeUp wakeUp) {
		startRelay(store, transport, wakeUp, RetryPolicy.defaults());
	}

	private void startRelay(OutboxStore store, Transport transport, RelayWakeUp wakeUp, RetryPolicy retry) {
		this.resources.add(transport);
		RelayListener listener = new RelayListener() {
			@Override
			public void published(ClaimedScope scope, Instant confirmedAt) {
				RelayAcknowledgementLossIntegrationTests.this.published.add(scope.id().toString());
			}

			@Override
			public void deadLettered(ClaimedScope scope, String error) {
				RelayAcknowledgementLossIntegrationTests.this.dead.add(error);
			}

			@Override
			public void released(ClaimedScope scope, String error) {
				RelayAcknowledgementLossIntegrationTests.this.released.add(error);
			}
		};
		TestRelay relay = TestRelay.builder(store, transport)
			.wakeUp(wakeUp)
			.settings(1, 10, Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(1), retry, 3,
					Duration.ofMillis(500))
			.listener(listener)
			.build();
		this.resources.add(relay);
		relay.start();
	}

	private WireFaultProxy postgresProxy() {
		WireFaultProxy proxy = WireFaultProxy.postgres();
		this.resources.add(proxy);
		return proxy;
	}

	private HikariDataSource pool(WireFaultProxy proxy) {
		HikariDataSource pool = proxy.pool();
		this.resources.add(pool);
		return pool;
	}

	private List<String> consume(BoundQueue queue) throws Exception {
		List<String> ids = new CopyOnWriteArrayList<>();
		com.rabbitmq.client.Connection consumer = TestRabbit.get().connect();
		this.resources.add(consumer);
		Channel channel = consumer.createChannel();
		channel.basicConsume(queue.name(), true, new DefaultConsumer(channel) {
			@Override
			public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
				ids.add(properties.getMessageId());
			}
		});
		return ids;
	}

}
