package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * What an untrusted message carries, through {@link InboxProcessor} on PostgreSQL: U+0000 in its
 * id, type, properties, headers and the handler's exception is recorded without failing the
 * inbox's statements, and a forwarded message keeps its headers with their types. Each delivery
 * returns an outcome; none throws (which would requeue it forever).
 */
class UntrustedInputIntegrationTests {

	private static final String TYPE = "test.untrusted-charge";

	private static TestSchema schema;

	private static TestInbox inbox;

	private static OutboxStore outbox;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_untrusted");
		inbox = new TestInbox(schema);
		outbox = TestOutbox.on(schema).store();
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void aNulInTheMessageIdFaultsAtOnceKeepingTheIdAndQuotingItReadably() {
		String queue = queue();
		InboundMessage message = message("abc\0def", TYPE, Map.of());

		assertThat(processor(3).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		OutboxMessage fault = forwarded(queue + "_error");
		assertThat(fault.headers()).containsEntry(InboxHeaders.FAULT_REASON, "message id 'abc\\u0000def' is not a UUID")
			.containsEntry(InboxHeaders.ORIGINAL_MESSAGE_ID, "abc\0def");
	}

	@Test
	void aNulInTheTypeFaultsAtOnceWithTheTypeStoredReplaced() {
		String queue = queue();
		InboundMessage message = message(UUID.randomUUID().toString(), TYPE + "\0", Map.of());
		UUID id = UUID.fromString(message.messageId());

		assertThat(processor(3).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		OutboxMessage fault = forwarded(queue + "_error");
		assertThat(fault.messageType()).isEqualTo(TYPE + "\uFFFD");
		assertThat((String) fault.headers().get(InboxHeaders.FAULT_REASON))
			.startsWith("no handler for type '" + TYPE + "\\u0000' on queue");
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row.get("faulted_at")).isNotNull();
		assertThat((String) row.get("last_error")).contains(TYPE + "\\u0000");
	}

	@Test
	void nulInPropertiesAndTheExceptionIsRecordedAndTheHeadersKeepTheirTypesThroughRedeliveryAndFault() {
		String queue = queue();
		List<Map<String, Object>> seen = new CopyOnWriteArrayList<>();
		ConsumerRegistration<Charge> consumer = ConsumerRegistration.of(queue, Charge.class, (charge, context) -> {
			seen.add(context.headers());
			throw new IllegalStateException("declined: \0 in the card number");
		});
		Map<String, Object> table = new LinkedHashMap<>();
		table.put("when", new Date(1_700_000_000_000L));
		table.put("nul", "x\0y");
		Map<String, Object> headers = new LinkedHashMap<>();
		headers.put("sent", new Date(1_700_000_000_000L));
		headers.put("bytes", new byte[] { 0, 1, (byte) 0xff });
		headers.put("table", table);
		headers.put("array", new ArrayList<>(List.of("a", 2L, new byte[] { 3 })));
		headers.put("count", 9L);
		headers.put("amount", new BigDecimal("1.50"));
		headers.put("value-with-nul", "a\0b");
		headers.put("name\0with-nul", "v");
		InboundMessage message = new InboundMessage(UUID.randomUUID().toString(), TYPE, "application/json\0",
				headers, "{\"order\":\"o-1\"}".getBytes(), "corr\0", "conv\0", TYPE, "");
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = processor(2);

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		OutboxMessage redelivery = forwarded(queue);
		assertTypedHeaders(redelivery.headers());
		assertThat(redelivery.contentType()).isEqualTo("application/json\uFFFD");
		assertThat(redelivery.correlationId()).isEqualTo("corr\uFFFD");
		assertThat(redelivery.conversationId()).isEqualTo("conv\uFFFD");
		assertThat((String) inbox.inboxRow(id, queue).get("last_error")).contains("declined: \uFFFD in the card number");

		assertThat(processor.process(consumer, delivered(redelivery, queue))).isEqualTo(InboxOutcome.FAULTED);
		OutboxMessage fault = forwarded(queue + "_error");
		assertTypedHeaders(fault.headers());
		assertThat(fault.headers()).containsEntry(InboxHeaders.FAULT_MESSAGE, "declined: \0 in the card number")
			.containsEntry(InboxHeaders.FAULT_ATTEMPTS, 2);
		assertThat(seen).hasSize(2).allSatisfy(UntrustedInputIntegrationTests::assertTypedHeaders);
		assertThat(inbox.inboxRow(id, queue).get("faulted_at")).isNotNull();
	}

	private static void assertTypedHeaders(Map<String, Object> headers) {
		assertThat(headers.get("sent")).isInstanceOf(Date.class).isEqualTo(new Date(1_700_000_000_000L));
		assertThat(headers.get("bytes")).isInstanceOf(byte[].class).isEqualTo(new byte[] { 0, 1, (byte) 0xff });
		assertThat(headers.get("table")).isInstanceOf(Map.class)
			.isEqualTo(Map.of("when", new Date(1_700_000_000_000L), "nul", "x\0y"));
		assertThat(headers.get("array")).isInstanceOf(List.class);
		List<?> array = (List<?>) headers.get("array");
		assertThat(array.get(0)).isEqualTo("a");
		assertThat(array.get(1)).isEqualTo(2L);
		assertThat(array.get(2)).isEqualTo(new byte[] { 3 });
		assertThat(headers.get("count")).isEqualTo(9L);
		assertThat(headers.get("amount")).isEqualTo(new BigDecimal("1.50"));
		assertThat(headers.get("value-with-nul")).isEqualTo("a\0b");
		assertThat(headers.get("name\0with-nul")).isEqualTo("v");
	}

	/**
	 * Returns the one message forwarded to {@code routingKey} since the last call, as the relay
	 * reads it, once it is due.
	 */
	private static OutboxMessage forwarded(String routingKey) {
		List<OutboxMessage> messages = new ArrayList<>();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			for (ClaimedScope scope : outbox.claim("test", Duration.ofMinutes(5), 100)) {
				messages.addAll(scope.messages());
			}
			return !messages.isEmpty();
		});
		assertThat(messages).singleElement().extracting(OutboxMessage::routingKey).isEqualTo(routingKey);
		return messages.get(0);
	}

	/** Returns the delivery a forwarded message becomes when the broker hands it back. */
	private static InboundMessage delivered(OutboxMessage message, String queue) {
		return new InboundMessage(message.messageId().toString(), message.messageType(), message.contentType(),
				message.headers(), message.body(), message.correlationId(), message.conversationId(), "", queue);
	}

	private static InboundMessage message(String id, String type, Map<String, Object> headers) {
		return new InboundMessage(id, type, "application/json", headers, "{\"order\":\"o-1\"}".getBytes(), null,
				null, TYPE, "");
	}

	private static InboxProcessor processor(int maxAttempts) {
		return inbox.processor(Duration.ofMillis(1), maxAttempts, 0);
	}

	private static String queue() {
		return "untrusted-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private static ConsumerRegistration<Charge> neverCalled(String queue) {
		return ConsumerRegistration.of(queue, Charge.class, (message, context) -> {
			throw new AssertionError("the handler of a poison message ran");
		});
	}

	@MessageType(TYPE)
	record Charge(String order) {
	}

}
