package dev.waybill.outbox.test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;

/**
 * Builds outbox messages and scopes for store tests.
 */
public final class TestMessages {

	private TestMessages() {
	}

	public static OutboxMessage message(String destination, String body) {
		return message(destination, body, null);
	}

	public static OutboxMessage message(String destination, String body, Instant notBefore) {
		return new OutboxMessage(TimeOrderedUuids.next(), destination, "key", "test.message", "application/json",
				Map.of("tenant", "acme", "priority", 3, "urgent", true), body.getBytes(StandardCharsets.UTF_8),
				"corr-1", "conv-1", "test-host", Instant.now(), notBefore);
	}

	public static OutboxScope scope(String destination, String... bodies) {
		List<OutboxMessage> messages = new ArrayList<>();
		for (String body : bodies) {
			messages.add(message(destination, body));
		}
		return new OutboxScope(UUID.randomUUID(), messages, null, null);
	}

}
