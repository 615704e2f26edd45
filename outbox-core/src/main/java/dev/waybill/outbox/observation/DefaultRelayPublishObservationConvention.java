package dev.waybill.outbox.observation;

import io.micrometer.common.KeyValues;

import dev.waybill.outbox.spi.OutboxMessage;

/**
 * The default names and tags of the {@code waybill.relay.publish} observation: the destination
 * exchange and the message type as low-cardinality tags, the message and scope ids as
 * high-cardinality ones; the span is named {@code publish <exchange>}, or {@code publish <queue>} for
 * a message sent through the default exchange (the inbox's redeliveries and its moves to
 * {@code <queue>_error}), which routes by the queue named in the routing key.
 *
 * @since 0.1
 */
public class DefaultRelayPublishObservationConvention implements RelayPublishObservationConvention {

	/** The observation's name. */
	public static final String NAME = "waybill.relay.publish";

	/** High-cardinality tag: the outbox scope id. */
	public static final String SCOPE_ID = "waybill.scope.id";

	/** The shared instance. */
	public static final DefaultRelayPublishObservationConvention INSTANCE = new DefaultRelayPublishObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RelayPublishContext context) {
		OutboxMessage message = context.message();
		String target = message.destination().isEmpty() ? message.routingKey() : message.destination();
		return target.isEmpty() ? "publish" : "publish " + target;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RelayPublishContext context) {
		OutboxMessage message = context.message();
		return KeyValues.of(DefaultOutboxPublishObservationConvention.DESTINATION, message.destination(),
				DefaultOutboxPublishObservationConvention.MESSAGE_TYPE, message.messageType());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RelayPublishContext context) {
		return KeyValues.of(DefaultOutboxPublishObservationConvention.MESSAGE_ID, context.message().messageId().toString(),
				SCOPE_ID, context.scopeId().toString());
	}

}
