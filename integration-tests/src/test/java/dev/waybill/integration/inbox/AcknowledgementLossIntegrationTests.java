package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WireFaultProxy;
import dev.waybill.outbox.test.WireFaultProxy.Fault;

/**
 * A consumer whose acknowledgements are lost on the wire ({@link WireFaultProxy}): the handler's
 * transaction committed but PostgreSQL's reply to the {@code COMMIT} never arrived, or the inbox's
 * {@code basic.ack} never reached the broker. Either way the broker delivers the message again and it
 * takes effect once: one business row, one inbox row marked processed, the handler's publication
 * written once, no failed attempt counted, nothing in the error queue.
 */
class AcknowledgementLossIntegrationTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private String queue;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("ack_loss");
		this.schema.execute("CREATE TABLE " + this.schema.name() + ".handled (n int NOT NULL)");
		this.queue = "ack-loss-" + UUID.randomUUID().toString().substring(0, 8);
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
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queueDelete(this.queue);
			channel.queueDelete(this.queue + "_error");
		}
		this.schema.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aLostCommitReplyIsRedeliveredAndTakesEffectOnce(Fault fault) throws Exception {
		WireFaultProxy database = postgresProxy();
		HikariDataSource pool = pool(database);
		database.loseCommitReply((sql) -> sql.contains(".handled"), fault);
		TestReceiveEndpoint endpoint = endpoint(pool, TestRabbit.get().transport().build());
		endpoint.start();
		UUID id = publish(1);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiveCount(id) >= 2 && queueIsEmpty());
		assertThat(database.fired()).isOne();
		assertEffectOnce(id);
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void aLostCommitReplyOfABatchTakesEffectOnceWhetherRetriedInPlaceOrRequeued(boolean partitioned)
			throws Exception {
		WireFaultProxy database = postgresProxy();
		HikariDataSource pool = pool(database);
		database.loseCommitReply((sql) -> sql.contains(".handled"), Fault.CUT);
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queueDeclare(this.queue, true, false, false, null);
		}
		List<UUID> ids = new ArrayList<>();
		for (int n = 1; n <= 8; n++) {
			ids.add(publish(n)); // queued before the consumer starts: handled in batches
		}
		TestReceiveEndpoint endpoint = endpoint(pool, TestRabbit.get().transport().build(), partitioned);
		endpoint.start();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> queueIsEmpty()
				&& new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM "
						+ this.schema.tables().qualifiedInboxState() + " WHERE processed_at IS NOT NULL",
						Integer.class) == ids.size());
		assertThat(database.fired()).isOne();
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		assertThat(jdbc.queryForList("SELECT n FROM " + this.schema.name() + ".handled ORDER BY n", Integer.class))
			.as("each once").containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage()
				+ " WHERE message_type = ?", Integer.class, Pong.TYPE)).isEqualTo(ids.size());
		assertThat(jdbc.queryForObject("SELECT max(attempts) FROM " + this.schema.tables().qualifiedInboxState(),
				Integer.class)).as("no failed attempt counted").isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "CUT", "STALL" })
	void aLostDeliveryAckIsRedeliveredAndTakenAsADuplicate(Fault fault) throws Exception {
		WireFaultProxy broker = WireFaultProxy.amqp(TestRabbit.get().host(), TestRabbit.get().port());
		this.resources.add(broker);
		broker.loseClientAck(fault);
		Transport transport = TestRabbit.get().transport(broker.host(), broker.port())
			.customizer((factory) -> factory.setRequestedHeartbeat(2))
			.recoveryInterval(Duration.ofMillis(200))
			.build();
		TestReceiveEndpoint endpoint = endpoint(this.schema.dataSource(), transport);
		endpoint.start();
		UUID id = publish(1);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiveCount(id) >= 2 && queueIsEmpty());
		assertThat(broker.fired()).isOne();
		assertEffectOnce(id);
	}

	private void assertEffectOnce(UUID id) throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(this.schema.dataSource());
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + this.schema.name() + ".handled", Integer.class))
			.as("business rows").isOne();
		Map<String, Object> inbox = jdbc.queryForMap("SELECT receive_count, attempts, processed_at, faulted_at, "
				+ "last_error FROM " + this.schema.tables().qualifiedInboxState() + " WHERE message_id = ?", id);
		assertThat(inbox.get("processed_at")).as(inbox.toString()).isNotNull();
		assertThat(inbox.get("faulted_at")).as(inbox.toString()).isNull();
		assertThat(inbox.get("attempts")).as("no failed attempt counted: " + inbox).isEqualTo(0);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage()
				+ " WHERE message_type = ?", Integer.class, Pong.TYPE)).as("the handler's publication").isOne();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState(),
				Integer.class)).as("one consumer outbox scope, no redelivery or fault scope").isOne();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			assertThat(channel.messageCount(this.queue + "_error")).as("error queue").isZero();
		}
	}

	private boolean queueIsEmpty() throws Exception {
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			AMQP.Queue.DeclareOk ok = channel.queueDeclarePassive(this.queue);
			return ok.getMessageCount() == 0;
		}
	}

	private int receiveCount(UUID id) {
		List<Integer> counts = new JdbcTemplate(this.schema.dataSource()).queryForList("SELECT receive_count FROM "
				+ this.schema.tables().qualifiedInboxState() + " WHERE message_id = ?", Integer.class, id);
		return counts.isEmpty() ? 0 : counts.get(0);
	}

	private UUID publish(int n) throws Exception {
		UUID id = UUID.randomUUID();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(id.toString())
				.type(Ping.TYPE).contentType("application/json").deliveryMode(2).build();
			channel.basicPublish("", this.queue, properties, ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
		}
		return id;
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

	private TestReceiveEndpoint endpoint(javax.sql.DataSource database, Transport transport) {
		return endpoint(database, transport, true);
	}

	private TestReceiveEndpoint endpoint(javax.sql.DataSource database, Transport transport, boolean partitioned) {
		DeliveryProcessor processor = new TestInbox(this.schema, database).deliveryProcessor(RetryPolicy.defaults(), 3);
		this.resources.add(transport);
		JdbcTemplate handledTable = new JdbcTemplate(database);
		String table = this.schema.name() + ".handled";
		MessageHandler<Ping> handler = (Ping ping, MessageContext context) -> {
			handledTable.update("INSERT INTO " + table + " (n) VALUES (?)", ping.n());
			context.publish(new Pong(ping.n()));
		};
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.create(transport, processor,
				List.of(ReceiveEndpoint.on(this.queue).withPartitionByOrderingKey(partitioned).handle(Ping.class, handler)),
				Duration.ofSeconds(5));
		this.resources.add(endpoint);
		return endpoint;
	}

	/** The message consumed. */
	@MessageType(Ping.TYPE)
	public record Ping(int n) {

		static final String TYPE = "test.ack-loss-ping";

	}

	/** The message the handler publishes. */
	@MessageType(Pong.TYPE)
	public record Pong(int n) {

		static final String TYPE = "test.ack-loss-pong";

	}

}
