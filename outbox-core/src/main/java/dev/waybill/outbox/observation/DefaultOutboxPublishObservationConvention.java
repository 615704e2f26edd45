package dev.waybill.outbox.observation;

import java.util.UUID;

import io.micrometer.common.KeyValues;

/**
 * The default names and tags of the {@code waybill.outbox.publish} observation: the message's
 * destination exchange and type as low-cardinality tags, its id as a high-cardinality one; the span
 * is named {@code create <exchange>}.
 *
 * @since 0.1
 */
public class DefaultOutboxPublishObservationConvention implements OutboxPublishObservationConvention {

	/** The observation's name. */
	public static final String NAME = "waybill.outbox.publish";

	/** Low-cardinality tag: the destination exchange. */
	public static final String DESTINATION = "messaging.destination.name";

	/** Low-cardinality tag: the message type. */
	public static final String MESSAGE_TYPE = "waybill.message.type";

	/** High-cardinality tag: the message id. */
	public static final String MESSAGE_ID = "messaging.message.id";

	/** The shared instance. */
	public static final DefaultOutboxPublishObservationConvention INSTANCE = new DefaultOutboxPublishObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(OutboxPublishContext context) {
		return "create " + context.destination();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(OutboxPublishContext context) {
		return KeyValues.of(DESTINATION, context.destination(), MESSAGE_TYPE, context.messageType());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(OutboxPublishContext context) {
		UUID id = context.messageId();
		return (id != null) ? KeyValues.of(MESSAGE_ID, id.toString()) : KeyValues.empty();
	}

}
