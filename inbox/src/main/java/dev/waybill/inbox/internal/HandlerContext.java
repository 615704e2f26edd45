package dev.waybill.inbox.internal;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.MessageContext;
import dev.waybill.kernel.PostgresText;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.PublishOptions;

/**
 * The {@link MessageContext} of one try at handling a delivery.
 */
final class HandlerContext implements MessageContext {

	private final UUID messageId;

	private final String messageType;

	private final InboundMessage message;

	private final String consumerId;

	private final int redeliveryCount;

	private final int retryAttempt;

	private final OutboxPublisher publisher;

	HandlerContext(UUID messageId, String messageType, InboundMessage message, String consumerId, int redeliveryCount,
			int retryAttempt, OutboxPublisher publisher) {
		this.messageId = messageId;
		this.messageType = messageType;
		this.message = message;
		this.consumerId = consumerId;
		this.redeliveryCount = redeliveryCount;
		this.retryAttempt = retryAttempt;
		this.publisher = publisher;
	}

	@Override
	public UUID messageId() {
		return this.messageId;
	}

	@Override
	public String messageType() {
		return this.messageType;
	}

	@Override
	public Map<String, Object> headers() {
		return this.message.headers();
	}

	@Override
	public @Nullable String correlationId() {
		return this.message.correlationId();
	}

	@Override
	public @Nullable String conversationId() {
		return this.message.conversationId();
	}

	@Override
	public int redeliveryCount() {
		return this.redeliveryCount;
	}

	@Override
	public int retryAttempt() {
		return this.retryAttempt;
	}

	@Override
	public String consumerId() {
		return this.consumerId;
	}

	@Override
	public UUID publish(Object message, Consumer<PublishOptions> options) {
		return this.publisher.publish(message, inherited(options));
	}

	@Override
	public UUID send(String destination, Object message, Consumer<PublishOptions> options) {
		return this.publisher.send(destination, message, inherited(options));
	}

	/**
	 * Correlates outgoing messages with this one and continues its conversation (as MassTransit
	 * does), before the caller's options, which win. The inbound conversation id is untrusted
	 * text: what PostgreSQL cannot store in it is replaced.
	 */
	private Consumer<PublishOptions> inherited(Consumer<PublishOptions> options) {
		Objects.requireNonNull(options, "options must not be null");
		String inbound = this.messageId.toString();
		String conversation = (this.message.conversationId() != null)
				? PostgresText.column(this.message.conversationId()) : inbound;
		return (outgoing) -> {
			outgoing.correlationId(inbound).conversationId(conversation);
			options.accept(outgoing);
		};
	}

	@Override
	public String toString() {
		return "MessageContext[" + this.messageId + " " + this.messageType + " on " + this.consumerId
				+ ", redelivery " + this.redeliveryCount + ", retry " + this.retryAttempt + "]";
	}

}
