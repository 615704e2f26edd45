package dev.waybill.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.spi.OutboxMessage;

class MessageChecksTests {

	@Test
	void aMessageTypeOver255BytesOrWithANulIsRefusedWhateverNamedIt() {
		String type = "ü".repeat(128); // 128 characters, 256 bytes
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> MessageChecks.check(message(type, "dest"), Long.MAX_VALUE))
			.withMessageContaining("the message type is 256 bytes in UTF-8; AMQP allows at most 255 bytes");
		assertThatExceptionOfType(InvalidMessageException.class)
			.isThrownBy(() -> MessageChecks.check(message("a\0b", "dest"), Long.MAX_VALUE))
			.withMessageStartingWith("Cannot publish message of type 'a\\u0000b': ")
			.withMessageContaining("the message type contains a NUL character (U+0000) at index 1");
		assertThatNoException().isThrownBy(() -> MessageChecks.check(message("ü".repeat(127) + "x", "dest"), Long.MAX_VALUE));
	}

	@Test
	void utf8LengthMatchesTheJdkEncoderForWellFormedText() {
		for (String text : new String[] { "", "ascii", "Zürich", "日本語", "emoji 😀 pair", "\u0080\u07ff\u0800\uffff" }) {
			assertThat(MessageChecks.utf8Length(text)).as(text).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
		}
	}

	private static OutboxMessage message(String type, String destination) {
		return new OutboxMessage(UUID.randomUUID(), destination, "", type, "application/json", Map.of(), new byte[0],
				null, null, null, Instant.now(), null);
	}

}
