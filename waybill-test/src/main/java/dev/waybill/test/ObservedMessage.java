package dev.waybill.test;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A message the {@link WaybillTestHarness} saw leave the application: written to the outbox by a
 * committed transaction (published or sent), or handed to the transport by the relay.
 *
 * @param <T> the message class
 * @param messageId the message id
 * @param messageType the message type name
 * @param destination the exchange it goes to: the exchange of its type when published, the named
 * destination when sent
 * @param routingKey the routing key, empty when none
 * @param headers the headers it carries
 * @param correlationId the correlation id, or {@literal null}
 * @param conversationId the conversation id, or {@literal null}
 * @param message the message, read back from its serialized body (or the object published)
 * @param observedAt when the harness saw it
 * @since 0.1
 */
public record ObservedMessage<T>(UUID messageId, String messageType, String destination, String routingKey,
		Map<String, Object> headers, @Nullable String correlationId, @Nullable String conversationId, T message,
		Instant observedAt) {

	/**
	 * Copies the headers.
	 */
	public ObservedMessage {
		headers = Map.copyOf(headers);
	}

}
