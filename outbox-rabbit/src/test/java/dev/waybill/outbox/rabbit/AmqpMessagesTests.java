package dev.waybill.outbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

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

	private static OutboxMessage message(String destination, String routingKey, Map<String, Object> headers,
			int bodySize) {
		return new OutboxMessage(UUID.randomUUID(), destination, routingKey, "test.message", "text/plain", headers,
				new byte[bodySize], null, null, null, Instant.now(), null);
	}

}
