package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.LongStringHelper;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.rabbit.RabbitHeaders;
import dev.waybill.outbox.spi.OutboxMessage;

class AmqpMessagesTests {

	@Test
	void aMessageWithinTheLimitsHasNoProblem() {
		assertThat(AmqpMessages.problem(message("orders", "key", Map.of("tenant", "acme"), 10), 10)).isNull();
	}

	@Test
	void aBodyOverTheLimitIsAProblem() {
		assertThat(AmqpMessages.problem(message("orders", "key", Map.of(), 11), 10))
			.isEqualTo("body of 11 bytes is over the broker's limit of 10 bytes (waybill.rabbit.max-body-size)");
	}

	@Test
	void shortStringsOverTwoHundredFiftyFiveUtf8BytesAreAProblem() {
		String tooLong = "é".repeat(128); // 256 bytes in UTF-8
		assertThat(AmqpMessages.problem(message(tooLong, "key", Map.of(), 1), 10))
			.startsWith("exchange name 'éééé")
			.endsWith("...' is 256 bytes; AMQP allows at most 255");
		assertThat(AmqpMessages.problem(message("orders", tooLong, Map.of(), 1), 10)).startsWith("routing key ");
		assertThat(AmqpMessages.problem(message("orders", "key", Map.of(tooLong, "v"), 1), 10))
			.startsWith("header name ");
		assertThat(AmqpMessages.problem(message("orders", "é".repeat(127), Map.of(), 1), 10)).isNull();
	}

	@Test
	void headerValuesAreOnesTheFieldTableCanEncode() {
		assertThat(AmqpMessages.headerValue("text")).isEqualTo("text");
		assertThat(AmqpMessages.headerValue(true)).isEqualTo(true);
		assertThat(AmqpMessages.headerValue(3)).isEqualTo(3);
		assertThat(AmqpMessages.headerValue(3L)).isEqualTo(3L);
		assertThat(AmqpMessages.headerValue(1.5d)).isEqualTo(1.5d);
		assertThat(AmqpMessages.headerValue(BigInteger.valueOf(42))).isEqualTo(42L);
		assertThat(AmqpMessages.headerValue(BigInteger.TWO.pow(70))).isEqualTo("1180591620717411303424");
		assertThat(AmqpMessages.headerValue(new BigDecimal("12345678901234.5678"))).isEqualTo("12345678901234.5678");
	}

	@Test
	void typedHeaderValuesKeepTheirAmqpTypes() {
		Date sent = new Date(1_700_000_000_000L);
		byte[] bytes = { 0, 1 };
		assertThat(AmqpMessages.headerValue(sent)).isSameAs(sent);
		assertThat(AmqpMessages.headerValue(bytes)).isSameAs(bytes);
		assertThat(AmqpMessages.headerValue((short) 3)).isEqualTo((short) 3);
		assertThat(AmqpMessages.headerValue(0.5f)).isEqualTo(0.5f);
		assertThat(AmqpMessages.headerValue(new BigDecimal("1.50"))).isEqualTo(new BigDecimal("1.50"));
		assertThat(AmqpMessages.headerValue(new BigDecimal("1E+3"))).as("negative scale").isEqualTo("1E+3");
		assertThat(AmqpMessages.headerValue(Map.of("big", BigInteger.TWO.pow(70), "when", sent)))
			.isEqualTo(Map.of("big", "1180591620717411303424", "when", sent));
		assertThat(AmqpMessages.headerValue(Arrays.asList("a\0b", null, BigInteger.ONE)))
			.isEqualTo(Arrays.asList("a\0b", null, 1L));
	}

	@Test
	void receivedStringsBecomeStringsAndInvalidUtf8StaysBytes() {
		LongString nul = LongStringHelper.asLongString("a\0b");
		LongString invalid = LongStringHelper.asLongString(new byte[] { 'a', (byte) 0xc3 });
		Date sent = new Date(1_700_000_000_000L);

		assertThat(AmqpMessages.inboundValue(nul)).isEqualTo("a\0b");
		assertThat(AmqpMessages.inboundValue(invalid)).isEqualTo(new byte[] { 'a', (byte) 0xc3 });
		assertThat(AmqpMessages.inboundValue(Map.of("s", nul, "list", List.of(nul, sent))))
			.isEqualTo(Map.of("s", "a\0b", "list", List.of("a\0b", sent)));
		assertThat(AmqpMessages.inboundValue(sent)).isSameAs(sent);
		assertThat(AmqpMessages.inboundValue(7L)).isEqualTo(7L);
	}

	@Test
	void aForwardedConversationHeaderIsKeptAsItArrived() {
		OutboxMessage forwarded = new OutboxMessage(UUID.randomUUID(), "", "queue", "test.message", "text/plain",
				Map.of(RabbitHeaders.CONVERSATION_ID, "conv\0"), new byte[0], null, "conv\uFFFD", null, Instant.now(),
				null);

		assertThat(AmqpMessages.properties(forwarded).getHeaders()).containsEntry(RabbitHeaders.CONVERSATION_ID, "conv\0");
	}

	@Test
	void anExpiringMessageCarriesTheTimeItHasLeftAsItsExpiration() {
		Instant now = Instant.now();
		OutboxMessage expiring = new OutboxMessage(UUID.randomUUID(), "orders", "", "test.message", "text/plain",
				Map.of(), new byte[1], null, null, null, now, null, now.plusSeconds(10));
		long expiration = Long.parseLong(AmqpMessages.properties(expiring).getExpiration());
		assertThat(expiration).isPositive().isLessThanOrEqualTo(10_000);
		OutboxMessage past = new OutboxMessage(UUID.randomUUID(), "orders", "", "test.message", "text/plain", Map.of(),
				new byte[1], null, null, null, now, null, now.minusSeconds(1));
		assertThat(AmqpMessages.properties(past).getExpiration()).as("never 0 or negative").isEqualTo("1");
		assertThat(AmqpMessages.properties(message("orders", "", Map.of(), 1)).getExpiration()).isNull();
	}

	private static OutboxMessage message(String destination, String routingKey, Map<String, Object> headers,
			int bodySize) {
		return new OutboxMessage(UUID.randomUUID(), destination, routingKey, "test.message", "text/plain", headers,
				new byte[bodySize], null, null, null, Instant.now(), null);
	}

}
