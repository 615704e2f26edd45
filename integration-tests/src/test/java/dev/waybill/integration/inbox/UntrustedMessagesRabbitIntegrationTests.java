package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Hand-crafted messages, published with a raw AMQP channel onto a consumer's queue: U+0000 in the
 * message id, the type, a header name and value, and headers of every AMQP type. Each ends where it
 * should within a bounded time, never loops, and the copy on the error queue keeps the headers it
 * arrived with, types and values.
 * <p>
 * The consumer runs on one channel with prefetch 1, so a delivery that looped (requeued to the head
 * of its queue) would starve the messages behind it.
 */
class UntrustedMessagesRabbitIntegrationTests {

	private static final String TYPE = "waybill-test.untrusted.order";

	private static final Date SENT = new Date(1_700_000_000_000L); // AMQP timestamps are whole seconds

	private static final List<Map<String, Object>> seenHeaders = new CopyOnWriteArrayList<>();

	private static final List<String> handled = new CopyOnWriteArrayList<>();

	private TestSchema schema;

	private String queue;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		seenHeaders.clear();
		handled.clear();
		this.schema = TestSchema.create("untrusted");
		this.queue = "waybill-test.untrusted." + UUID.randomUUID().toString().substring(0, 8);
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.channel.queueDelete(this.queue);
		this.channel.queueDelete(errorQueue());
		this.channel.exchangeDelete(TYPE);
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void aNulInTheMessageIdGoesToTheErrorQueueAtOnceWithTheIdKept() {
		service().run((context) -> {
			publish("abc\0def", TYPE, Map.of(), "fail");
			String sentinel = publishSentinel();

			GetResponse fault = awaitError();
			assertThat(fault.getProps().getHeaders().get(InboxHeaders.ORIGINAL_MESSAGE_ID)).hasToString("abc\0def");
			assertThat(fault.getProps().getHeaders().get(InboxHeaders.FAULT_REASON))
				.hasToString("message id 'abc\\u0000def' is not a UUID");
			assertNoLoop(sentinel);
			assertThat(handled).containsExactly(sentinel);
		});
	}

	@Test
	void aNulInTheTypeGoesToTheErrorQueueAtOnce() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE + "\0", Map.of(), "fail");
			String sentinel = publishSentinel();

			GetResponse fault = awaitError();
			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			assertThat(fault.getProps().getType()).isEqualTo(TYPE + "\uFFFD");
			assertThat(fault.getProps().getHeaders().get(InboxHeaders.FAULT_REASON).toString())
				.startsWith("no handler for type '" + TYPE + "\\u0000' on queue");
			assertNoLoop(sentinel);
			assertThat(handled).containsExactly(sentinel);
			assertThat(jdbc().queryForObject("SELECT last_error FROM " + this.schema.name()
					+ ".inbox_state WHERE message_id = ?::uuid AND faulted_at IS NOT NULL", String.class, id))
				.contains(TYPE + "\\u0000");
		});
	}

	@Test
	void aFailingMessageIsRedeliveredThenFaultedKeepingItsHeadersWithTheirAmqpTypes() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE, typedHeaders(), "fail");

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			assertThat(fault.getProps().getType()).isEqualTo(TYPE);
			assertThat(new String(fault.getBody(), StandardCharsets.UTF_8)).contains("\"mode\":\"fail\"");
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertTypedHeaders(headers);
			assertThat(headers.get(InboxHeaders.FAULT_ATTEMPTS)).isEqualTo(3);
			assertThat(headers.get(InboxHeaders.REDELIVERY_COUNT)).as("from the last redelivery").isEqualTo(2);
			assertThat(headers.get(InboxHeaders.FAULT_MESSAGE)).hasToString("declined: \0 in the card number");
			assertThat(handled).containsExactly(id, id, id);
			assertThat(seenHeaders).hasSize(3).allSatisfy(this::assertTypedHeaders);
			assertThat(seenHeaders.get(0).get("value-with-nul")).as("handlers see strings, not LongStrings")
				.isEqualTo("a\0b");
			assertNoLoop(publishSentinel());
		});
	}

	@Test
	void aFaultWhoseExceptionMessageIsHugeReachesTheErrorQueueWithTheMessageCut() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE, Map.of(), "huge");

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			Map<String, Object> headers = fault.getProps().getHeaders();
			String message = headers.get(InboxHeaders.FAULT_MESSAGE).toString();
			assertThat(message).startsWith("declined: xxx").endsWith("... (200010 characters in all)")
				.hasSizeLessThan(4_100);
			assertThat(headers.get(InboxHeaders.FAULT_STACK_TRACE).toString())
				.startsWith("java.lang.IllegalStateException: declined: xxx")
				.endsWith("characters in all)")
				.hasSizeLessThan(8_100);
			assertNoLoop(publishSentinel());
		});
	}

	@Test
	void aFailingMessageWhoseRedeliveryWouldNotFitInOneFrameIsFaultedAtOnceWithoutItsHeaders() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE, frameFillingHeaders(), "fail"); // fits one frame as it arrived, not as a redelivery

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			assertThat(new String(fault.getBody(), StandardCharsets.UTF_8)).contains("\"mode\":\"fail\"");
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertThat(headers.get(InboxHeaders.FAULT_REASON).toString())
				.startsWith("headers too large to forward for a redelivery (").contains(" bytes > 131064");
			assertThat(headers.get(InboxHeaders.FAULT_EXCEPTION_TYPE)).hasToString("java.lang.IllegalStateException");
			assertThat(headers.get(InboxHeaders.FAULT_MESSAGE)).hasToString("declined: \0 in the card number");
			assertThat(headers.get(InboxHeaders.FAULT_ATTEMPTS)).isEqualTo(1);
			assertThat(headers.get(InboxHeaders.ORIGINAL_ROUTING_KEY)).hasToString(this.queue);
			assertThat(headers.get(InboxHeaders.DROPPED_HEADERS).toString()).startsWith("127 headers (");
			assertThat(headers).doesNotContainKey("h000").doesNotContainKey("big");
			assertThat(handled).containsExactly(id);
			assertFinal(id, true, 1, "headers too large to forward for a redelivery");
			assertNoLoop(publishSentinel());
		});
	}

	@Test
	void aMessageOfAnUnknownTypeWhoseFaultCopyWouldNotFitInOneFrameReachesTheErrorQueueWithoutItsHeaders() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE + ".unknown", frameFillingHeaders(), "ok");

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertThat(headers.get(InboxHeaders.FAULT_REASON).toString())
				.startsWith("no handler for type '" + TYPE + ".unknown' on queue");
			assertThat(headers.get(InboxHeaders.DROPPED_HEADERS).toString()).startsWith("127 headers (");
			assertThat(headers).doesNotContainKey("h000");
			assertThat(handled).isEmpty();
			assertFinal(id, true, 1, "no handler for type");
			assertNoLoop(publishSentinel());
		});
	}

	@Test
	void aFaultWithAHugeExceptionMessageAndLargeHeadersReachesTheErrorQueueWithItsTextsShortened() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			Map<String, Object> large = new LinkedHashMap<>();
			for (int i = 0; i < 127; i++) {
				large.put(String.format("h%03d", i), "v".repeat(1000)); // about 128 KB: redeliveries fit
			}
			publish(id, TYPE, large, "huge");

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(id);
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertThat(headers).containsKeys("h000", "h126").doesNotContainKey(InboxHeaders.DROPPED_HEADERS);
			assertThat(headers.get("h126")).hasToString("v".repeat(1000));
			assertThat(headers.get(InboxHeaders.FAULT_ATTEMPTS)).isEqualTo(3);
			assertThat(headers.get(InboxHeaders.FAULT_EXCEPTION_TYPE)).hasToString("java.lang.IllegalStateException");
			String trace = String.valueOf(headers.get(InboxHeaders.FAULT_STACK_TRACE));
			String message = headers.get(InboxHeaders.FAULT_MESSAGE).toString();
			assertThat(message).startsWith("declined: xxx").endsWith("... (200010 characters in all)");
			assertThat(trace.length() + message.length()).as("shortened to fit the frame").isLessThan(4_000);
			assertThat(handled).containsExactly(id, id, id);
			assertFinal(id, true, 3, "declined: xxx");
			assertNoLoop(publishSentinel());
		});
	}

	/** Asserts that the message's inbox row is final: faulted (or processed), with its attempts. */
	private void assertFinal(String messageId, boolean faulted, int attempts, String lastError) {
		Map<String, Object> row = jdbc().queryForMap("SELECT attempts, last_error, processed_at IS NOT NULL AS processed, "
				+ "faulted_at IS NOT NULL AS faulted FROM " + this.schema.name() + ".inbox_state WHERE message_id = ?::uuid",
				messageId);
		assertThat(row.get("faulted")).isEqualTo(faulted);
		assertThat(row.get("processed")).isEqualTo(!faulted);
		assertThat(row.get("attempts")).isEqualTo(attempts);
		assertThat(row.get("last_error").toString()).contains(lastError);
	}

	/**
	 * Headers within a few bytes of what one AMQP frame of RabbitMQ's default frame_max carries with
	 * this test's properties: 126 of 1,000 characters and one of 3,670 (the message arrives, and is
	 * handled; any header Waybill adds to forward it takes it over the frame).
	 */
	private static Map<String, Object> frameFillingHeaders() {
		Map<String, Object> headers = new LinkedHashMap<>();
		for (int i = 0; i < 126; i++) {
			headers.put(String.format("h%03d", i), "v".repeat(1000));
		}
		headers.put("big", "b".repeat(3670));
		return headers;
	}

	@Test
	void aMessageWithNulAndTypedHeadersIsProcessedOnce() {
		service().run((context) -> {
			String sentinel = publishSentinel();

			awaitProcessed(sentinel);
			assertThat(handled).containsExactly(sentinel);
			assertThat(seenHeaders).singleElement().satisfies(this::assertTypedHeaders);
		});
	}

	@Test
	void aCopyOfAFaultedMessageIsAcknowledgedWithoutTheHandlerOrASecondFaultUntilItsFaultIsCleared() {
		service().run((context) -> {
			String id = UUID.randomUUID().toString();
			publish(id, TYPE, Map.of(), "fail");
			awaitError();
			assertThat(handled).containsExactly(id, id, id);

			publish(id, TYPE, Map.of(), "fail"); // a relay's re-publish, a broker's duplicate
			String sentinel = publishSentinel();
			assertNoLoop(sentinel);
			assertThat(handled).as("the copy did not run the handler").containsExactly(id, id, id, sentinel);

			assertThat(context.getBean(InboxAdmin.class).clearFault(UUID.fromString(id), this.queue)).isTrue();
			publish(id, TYPE, Map.of(), "ok"); // redriven by an operator
			awaitProcessed(id);
			assertThat(handled).containsExactly(id, id, id, sentinel, id);
			assertThat(jdbc().queryForObject("SELECT faulted_at IS NULL FROM " + this.schema.name()
					+ ".inbox_state WHERE message_id = ?::uuid", Boolean.class, id)).isTrue();
		});
	}

	/**
	 * Asserts that a message published after the one under test was processed (it would starve
	 * behind a looping delivery) and that the error queue holds no second copy.
	 */
	private void assertNoLoop(String sentinel) {
		awaitProcessed(sentinel);
		try {
			assertThat(this.channel.basicGet(errorQueue(), true)).as("a second copy on the error queue").isNull();
			assertThat(this.channel.queueDeclarePassive(this.queue).getMessageCount()).isZero();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void awaitProcessed(String messageId) {
		await().until(() -> jdbc().queryForObject("SELECT count(*) FROM " + this.schema.name()
				+ ".inbox_state WHERE message_id = ?::uuid AND processed_at IS NOT NULL", Integer.class, messageId) == 1);
	}

	@SuppressWarnings("unchecked")
	private void assertTypedHeaders(Map<String, Object> headers) {
		assertThat(headers.get("sent")).isInstanceOf(Date.class).isEqualTo(SENT);
		assertThat(headers.get("bytes")).isInstanceOf(byte[].class).isEqualTo(new byte[] { 0, 1, (byte) 0xff });
		assertThat(headers.get("table")).isInstanceOf(Map.class);
		Map<String, Object> table = (Map<String, Object>) headers.get("table");
		assertThat(table.get("when")).isInstanceOf(Date.class).isEqualTo(SENT);
		assertThat(table.get("inner")).hasToString("x\0y");
		assertThat(table.get("count")).isEqualTo(5L);
		assertThat(headers.get("array")).isInstanceOf(List.class);
		List<Object> array = (List<Object>) headers.get("array");
		assertThat(array).hasSize(3);
		assertThat(array.get(0)).hasToString("a");
		assertThat(array.get(1)).isEqualTo(1);
		assertThat(array.get(2)).isEqualTo(SENT);
		assertThat(headers.get("count")).isInstanceOf(Long.class).isEqualTo(7L);
		assertThat(headers.get("small")).isInstanceOf(Short.class).isEqualTo((short) 3);
		assertThat(headers.get("ratio")).isInstanceOf(Float.class).isEqualTo(0.5f);
		assertThat(headers.get("amount")).isInstanceOf(BigDecimal.class).isEqualTo(new BigDecimal("1.50"));
		assertThat(headers.get("value-with-nul")).hasToString("a\0b");
		assertThat(headers.get("name\0with-nul")).hasToString("v");
		assertThat(headers.get("tenant")).hasToString("acme");
	}

	private static Map<String, Object> typedHeaders() {
		Map<String, Object> table = new LinkedHashMap<>();
		table.put("when", SENT);
		table.put("inner", "x\0y");
		table.put("count", 5L);
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put("sent", SENT);
		headers.put("bytes", new byte[] { 0, 1, (byte) 0xff });
		headers.put("table", table);
		headers.put("array", new ArrayList<>(List.of("a", 1, SENT)));
		headers.put("count", 7L);
		headers.put("small", (short) 3);
		headers.put("ratio", 0.5f);
		headers.put("amount", new BigDecimal("1.50"));
		headers.put("value-with-nul", "a\0b");
		headers.put("name\0with-nul", "v");
		return headers;
	}

	/** Publishes a message the handler processes, with U+0000 and typed headers; returns its id. */
	private String publishSentinel() {
		String id = UUID.randomUUID().toString();
		publish(id, TYPE, typedHeaders(), "ok");
		return id;
	}

	private void publish(String messageId, String type, Map<String, Object> headers, String mode) {
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
			.type(type)
			.contentType("application/json")
			.correlationId("corr\0")
			.deliveryMode(2)
			.headers(headers)
			.build();
		byte[] body = ("{\"id\":\"" + UUID.randomUUID() + "\",\"mode\":\"" + mode + "\"}").getBytes(StandardCharsets.UTF_8);
		try {
			this.channel.basicPublish("", this.queue, true, properties, body);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private GetResponse awaitError() {
		return await().until(() -> this.channel.basicGet(errorQueue(), true), (response) -> response != null);
	}

	private String errorQueue() {
		return this.queue + "_error";
	}

	private ApplicationContextRunner service() {
		TestRabbit rabbit = TestRabbit.get();
		MessageHandler<Order> handler = (order, context) -> {
			handled.add(context.messageId().toString());
			seenHeaders.add(context.headers());
			if ("fail".equals(order.mode())) {
				throw new IllegalStateException("declined: \0 in the card number");
			}
			if ("huge".equals(order.mode())) {
				throw new IllegalStateException("declined: " + "x".repeat(200_000));
			}
		};
		ReceiveEndpoint consumer = ReceiveEndpoint.on(this.queue).withConcurrency(1).withPrefetch(1)
			.handle(Order.class, handler);
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withBean(ConsumerRegistry.class, () -> ConsumerRegistry.ofEndpoints(List.of(consumer)))
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "waybill.inbox.retry.interval=200ms",
					"waybill.inbox.retry.max-attempts=3", "waybill.inbox.retry.jitter=0");
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(TYPE)
	record Order(UUID id, String mode) {
	}

}
