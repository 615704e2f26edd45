package dev.waybill.integration.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.rabbit.ErrorQueueInfo;
import dev.waybill.outbox.rabbit.ErrorQueueMessage;
import dev.waybill.outbox.rabbit.ErrorQueues;
import dev.waybill.outbox.rabbit.test.TestErrorQueues;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * The error-queue operations on a real RabbitMQ and PostgreSQL, without a consumer running: peeking
 * loses nothing and keeps the order; a redrive writes the message to the outbox addressed to the
 * consumer's queue and clears the inbox fault in one transaction, and acknowledges the error-queue
 * copy only after the commit, so a failing transaction leaves everything as it was; discard drops
 * only what it is told to.
 */
class RabbitErrorQueuesIntegrationTests {

	record Payment(String id) {
	}

	private TestSchema schema;

	private String queue;

	private Connection rabbit;

	private Channel channel;

	private Transport transport;

	private ErrorQueues errorQueues;

	private final List<String> counted = new ArrayList<>();

	@BeforeEach
	void setUp() throws Exception {
		this.schema = TestSchema.withWaybillTables("errorqueues");
		this.queue = "waybill-test.error-queues." + UUID.randomUUID().toString().substring(0, 8);
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		this.channel.queueDeclare(this.queue, true, false, false, null);
		this.channel.queueDeclare(this.queue + "_error", true, false, false, null);
		this.transport = TestRabbit.get().transport().build();
		ConsumerRegistration<Payment> consumer = ConsumerRegistration.of(this.queue, Payment.class, (payment, context) -> {
		});
		this.errorQueues = TestErrorQueues.create(this.transport, List.of(consumer),
				new DataSourceTransactionManager(this.schema.dataSource()), TestOutbox.on(this.schema).writer(),
				new TestInbox(this.schema).admin(), new RelayWakeUp(),
				new AdminAudit(() -> Stream.of(this.counted::add), Clock.systemUTC()));
	}

	@AfterEach
	void tearDown() throws Exception {
		this.channel.queueDelete(this.queue);
		this.channel.queueDelete(this.queue + "_error");
		this.rabbit.close();
		this.transport.close();
		this.schema.close();
	}

	@Test
	void depthIsReadAndAMissingErrorQueueIsReportedNotThrown() throws Exception {
		fault("a");
		fault("b");
		assertThat(this.errorQueues.queues()).singleElement().satisfies((info) -> {
			assertThat(info.queue()).isEqualTo(this.queue);
			assertThat(info.errorQueue()).isEqualTo(this.queue + "_error");
			assertThat(info.depth()).isEqualTo(2);
			assertThat(info.problem()).isNull();
		});
		this.channel.queueDelete(this.queue + "_error");
		List<ErrorQueueInfo> missing = this.errorQueues.queues();
		assertThat(missing.get(0).depth()).isEqualTo(-1);
		assertThat(missing.get(0).problem()).contains("NOT_FOUND");
	}

	@Test
	void peekingShowsTheFaultAndLosesNothingInQueueOrder() throws Exception {
		List<String> ids = List.of(fault("first"), fault("second"), fault("third"));

		List<ErrorQueueMessage> peeked = this.errorQueues.peek(this.queue, 2, 5);

		assertThat(peeked).extracting(ErrorQueueMessage::messageId).containsExactly(ids.get(0), ids.get(1));
		ErrorQueueMessage first = peeked.get(0);
		assertThat(first.faultMessage()).isEqualTo("declined first");
		assertThat(first.faultExceptionType()).isEqualTo("java.lang.IllegalStateException");
		assertThat(first.faultAttempts()).isEqualTo(3);
		assertThat(first.originalExchange()).isEqualTo("payments");
		assertThat(first.bodyPreview()).isEqualTo("{\"id\"");
		assertThat(first.bodyTruncated()).isTrue();
		assertThat(drainIds()).containsExactlyElementsOf(ids);
		assertThatIllegalArgumentException().isThrownBy(() -> this.errorQueues.peek("elsewhere", 1, 10));
		// bounded as an outbox scope's preview is (a harness trial found Integer.MAX_VALUE accepted)
		assertThatIllegalArgumentException().isThrownBy(() -> this.errorQueues.peek(this.queue, 1, Integer.MAX_VALUE))
			.withMessageContaining("previewBytes 0 to 65536");
	}

	@Test
	void aRedriveWritesTheMessageToTheOutboxForItsQueueClearsTheFaultAndKeepsTheOthers() throws Exception {
		List<String> ids = List.of(fault("first"), fault("second"), fault("third"));
		inboxFault(ids.get(1));

		List<String> moved = this.errorQueues.redrive(this.queue + "_error", List.of(ids.get(1)), "carol");

		assertThat(moved).containsExactly(ids.get(1));
		Map<String, Object> written = jdbc().queryForMap("SELECT destination, routing_key, message_type, headers::text AS headers, "
				+ "convert_from(body, 'UTF8') AS body FROM " + this.schema.tables().qualifiedOutboxMessage()
				+ " WHERE message_id = ?::uuid", ids.get(1));
		assertThat(written.get("destination")).isEqualTo("");
		assertThat(written.get("routing_key")).isEqualTo(this.queue);
		assertThat(written.get("message_type")).isEqualTo("payments.payment");
		assertThat(written.get("body")).isEqualTo("{\"id\":\"second\"}");
		assertThat((String) written.get("headers")).contains("tenant").contains(InboxHeaders.ORIGINAL_EXCHANGE)
			.doesNotContain(InboxHeaders.FAULT_MESSAGE).doesNotContain(InboxHeaders.FAULT_ATTEMPTS);
		assertThat(jdbc().queryForObject("SELECT faulted_at IS NULL AND attempts = 0 FROM "
				+ this.schema.tables().qualifiedInboxState() + " WHERE message_id = ?::uuid", Boolean.class, ids.get(1)))
			.as("the fault is cleared: the inbox handles the redriven message as new work")
			.isTrue();
		assertThat(drainIds()).containsExactly(ids.get(0), ids.get(2));
		assertThat(this.counted).containsExactly("error-queue.redrive");
	}

	@Test
	void redrivingAllMovesEveryMessage() throws Exception {
		List<String> ids = List.of(fault("first"), fault("second"));

		assertThat(this.errorQueues.redrive(this.queue, null, "carol")).containsExactlyElementsOf(ids);

		assertThat(drainIds()).isEmpty();
		assertThat(jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage()
				+ " WHERE routing_key = ?", Long.class, this.queue)).isEqualTo(2);
	}

	@Test
	void aRedriveWhoseTransactionFailsLeavesTheMessageInTheErrorQueueAndTheFaultInPlace() throws Exception {
		String id = fault("first");
		inboxFault(id);
		// The database refuses to clear the fault, after the outbox row was written in the same transaction.
		String table = this.schema.tables().qualifiedInboxState();
		this.schema.execute("CREATE FUNCTION " + this.schema.name() + ".refuse() RETURNS trigger LANGUAGE plpgsql AS "
				+ "$$ BEGIN RAISE EXCEPTION 'refused by test'; END $$");
		this.schema.execute("CREATE TRIGGER refuse BEFORE UPDATE ON " + table + " FOR EACH ROW EXECUTE FUNCTION "
				+ this.schema.name() + ".refuse()");

		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> this.errorQueues.redrive(this.queue, List.of(id), "carol"))
			.withStackTraceContaining("refused by test");

		assertThat(jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage(),
				Long.class)).as("the outbox write rolled back with it").isZero();
		assertThat(jdbc().queryForObject("SELECT faulted_at IS NOT NULL FROM " + table + " WHERE message_id = ?::uuid",
				Boolean.class, id)).isTrue();
		assertThat(drainIds()).as("not acknowledged").containsExactly(id);
	}

	@Test
	void discardDropsOnlyTheChosenMessages() throws Exception {
		List<String> ids = List.of(fault("first"), fault("second"));

		assertThat(this.errorQueues.discard(this.queue, List.of(ids.get(0), "not-there"), "dave"))
			.containsExactly(ids.get(0));

		assertThat(drainIds()).containsExactly(ids.get(1));
		assertThat(this.counted).containsExactly("error-queue.discard");
	}

	@Test
	void messagesAnotherReaderHoldsForAMomentAreStillTakenExactlyOnce() throws Exception {
		List<String> ids = List.of(fault("first"), fault("second"), fault("third"));
		// Another reader (a second operator's console peeking every 5 s) holds every message for a moment.
		Channel other = this.rabbit.createChannel();
		long lastTag = -1;
		for (int i = 0; i < ids.size(); i++) {
			lastTag = other.basicGet(this.queue + "_error", false).getEnvelope().getDeliveryTag();
		}
		long held = lastTag;
		Thread putBack = new Thread(() -> {
			try {
				Thread.sleep(400);
				other.basicNack(held, true, true);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		putBack.start();

		List<String> dropped = this.errorQueues.discard(this.queue, List.of(ids.get(1)), "dave");
		putBack.join();
		List<String> moved = this.errorQueues.redrive(this.queue, List.of(ids.get(2), ids.get(2)), "carol");

		assertThat(dropped).containsExactly(ids.get(1));
		assertThat(moved).containsExactly(ids.get(2));
		assertThat(jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxMessage(),
				Long.class)).isEqualTo(1);
		assertThat(drainIds()).containsExactly(ids.get(0));
		other.close();
	}

	@Test
	void anIdThatIsNotThereIsGivenUpAfterAShortWhile() throws Exception {
		String id = fault("first");
		long started = System.nanoTime();

		assertThat(this.errorQueues.discard(this.queue, List.of("not-there"), "dave")).isEmpty();

		long millis = (System.nanoTime() - started) / 1_000_000;
		assertThat(millis).isBetween(1_500L, 10_000L);
		assertThat(drainIds()).containsExactly(id);
	}

	/** Publishes a faulted message to the error queue as the inbox would. */
	private String fault(String id) throws Exception {
		String messageId = UUID.randomUUID().toString();
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put(InboxHeaders.FAULT_EXCEPTION_TYPE, "java.lang.IllegalStateException");
		headers.put(InboxHeaders.FAULT_MESSAGE, "declined " + id);
		headers.put(InboxHeaders.FAULT_ATTEMPTS, 3);
		headers.put(InboxHeaders.ORIGINAL_EXCHANGE, "payments");
		headers.put(InboxHeaders.ORIGINAL_ROUTING_KEY, "");
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
			.type("payments.payment")
			.contentType("application/json")
			.deliveryMode(2)
			.headers(headers)
			.build();
		this.channel.basicPublish("", this.queue + "_error", properties,
				("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
		return messageId;
	}

	private void inboxFault(String messageId) {
		jdbc().update("INSERT INTO " + this.schema.tables().qualifiedInboxState()
				+ " (message_id, consumer_id, attempts, last_error, faulted_at) VALUES (?::uuid, ?, 3, 'declined', now())",
				messageId, this.queue);
	}

	/** Takes every message off the error queue, in order, and returns their ids. */
	private List<String> drainIds() throws Exception {
		List<String> ids = new ArrayList<>();
		GetResponse response;
		while ((response = this.channel.basicGet(this.queue + "_error", true)) != null) {
			ids.add(response.getProps().getMessageId());
		}
		return ids;
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

}
