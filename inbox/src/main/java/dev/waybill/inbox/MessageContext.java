package dev.waybill.inbox;

import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The delivery a {@link MessageHandler} is handling: its envelope, and the consumer outbox through
 * which the handler publishes. Valid only while {@link MessageHandler#handle} runs, on its thread.
 * <p>
 * {@code publish} and {@code send} go through the {@link OutboxPublisher} in the handling
 * transaction: the messages are written with the inbox row, tied to the inbound message, and
 * relayed only if the handler succeeds; a handler that throws publishes nothing. Unless the
 * options set them, a message published here gets the inbound message id as its correlation id and
 * carries the inbound conversation id on (the inbound message id when it had none).
 *
 * @since 0.1
 */
public interface MessageContext {

	/**
	 * Returns the id of the inbound message, the key of the inbox.
	 * @return the message id
	 */
	UUID messageId();

	/**
	 * Returns the message type name of the inbound message (see {@link dev.waybill.outbox.MessageType}).
	 * @return the message type
	 */
	String messageType();

	/**
	 * Returns the inbound message's headers, with the types the transport read them as (see
	 * {@link InboundMessage#headers()}).
	 * @return an unmodifiable map of the headers, empty when there are none
	 */
	Map<String, Object> headers();

	/**
	 * Returns the inbound message's correlation id.
	 * @return the correlation id, or {@literal null}
	 */
	@Nullable String correlationId();

	/**
	 * Returns the store the message is handled in: its inbox row, the handler's transaction and
	 * what the handler publishes are that store's (see {@link dev.waybill.outbox.store.WaybillStores}).
	 * @return the store's name, from the {@value PublishOptions#STORE_HEADER} header;
	 * {@value WaybillStore#DEFAULT_NAME} without it
	 * @since 0.1
	 */
	default String store() {
		return (headers().get(PublishOptions.STORE_HEADER) instanceof String store && !store.isEmpty()) ? store
				: WaybillStore.DEFAULT_NAME;
	}

	/**
	 * Returns the inbound message's conversation id.
	 * @return the conversation id, or {@literal null}
	 */
	@Nullable String conversationId();

	/**
	 * Returns how many earlier deliveries of this message to this consumer failed: 0 on the first
	 * delivery, 1 on the first redelivery after a failure, and so on.
	 * @return the number of failed deliveries so far
	 */
	int redeliveryCount();

	/**
	 * Returns the number of this in-process retry within the current delivery (see
	 * {@code waybill.inbox.retry.immediate}): 0 on the first try.
	 * @return the immediate retry number
	 */
	default int retryAttempt() {
		return 0;
	}

	/**
	 * Returns the id of the consumer handling the message: its queue name.
	 * @return the consumer id
	 */
	String consumerId();

	/**
	 * Publishes an event to the exchange of its message type, in the handling transaction.
	 * @param message the message, must not be {@literal null}
	 * @return the id of the published message
	 * @see OutboxPublisher#publish(Object)
	 */
	default UUID publish(Object message) {
		return publish(message, (options) -> {
		});
	}

	/**
	 * Publishes an event with the options {@code options} sets, in the handling transaction.
	 * @param message the message, must not be {@literal null}
	 * @param options sets the options of this message; what it sets wins over the correlation and
	 * conversation ids taken from the inbound message
	 * @return the id of the published message
	 * @see OutboxPublisher#publish(Object, Consumer)
	 */
	UUID publish(Object message, Consumer<PublishOptions> options);

	/**
	 * Sends a command to a named destination exchange, in the handling transaction.
	 * @param destination the destination name, must not be blank
	 * @param message the message, must not be {@literal null}
	 * @return the id of the sent message
	 * @see OutboxPublisher#send(String, Object)
	 */
	default UUID send(String destination, Object message) {
		return send(destination, message, (options) -> {
		});
	}

	/**
	 * Sends a command to a named destination exchange with the options {@code options} sets, in the
	 * handling transaction.
	 * @param destination the destination name, must not be blank
	 * @param message the message, must not be {@literal null}
	 * @param options sets the options of this message; what it sets wins over the correlation and
	 * conversation ids taken from the inbound message
	 * @return the id of the sent message
	 * @see OutboxPublisher#send(String, Object, Consumer)
	 */
	UUID send(String destination, Object message, Consumer<PublishOptions> options);

}
