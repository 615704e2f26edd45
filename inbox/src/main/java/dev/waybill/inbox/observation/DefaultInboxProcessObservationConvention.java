package dev.waybill.inbox.observation;

import java.util.Locale;

import io.micrometer.common.KeyValues;

import dev.waybill.inbox.InboxOutcome;

/**
 * The default names and tags of the {@code waybill.inbox.process} observation. Low-cardinality
 * tags: the consumer's {@code queue}, its declared message type (never the inbound header, so
 * crafted messages cannot create meters) and the {@code outcome} ({@code processed},
 * {@code duplicate}, {@code retry_scheduled}, {@code faulted}, {@code already_faulted}, or
 * {@code none} when nothing was recorded); high-cardinality: the message id as the delivery carried
 * it and the consumer id. The span is named {@code process <queue>}.
 *
 * @since 0.1
 */
public class DefaultInboxProcessObservationConvention implements InboxProcessObservationConvention {

	/** The observation's name. */
	public static final String NAME = "waybill.inbox.process";

	/** Low-cardinality tag: the consumer's queue. */
	public static final String QUEUE = "waybill.queue";

	/** Low-cardinality tag: the consumer's message type. */
	public static final String MESSAGE_TYPE = "waybill.message.type";

	/** Low-cardinality tag: what the inbox committed. */
	public static final String OUTCOME = "waybill.outcome";

	/** High-cardinality tag: the message id. */
	public static final String MESSAGE_ID = "messaging.message.id";

	/** High-cardinality tag: the consumer id. */
	public static final String CONSUMER = "waybill.consumer";

	/** The shared instance. */
	public static final DefaultInboxProcessObservationConvention INSTANCE = new DefaultInboxProcessObservationConvention();

	private static final int MAX_ID_LENGTH = 64;

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(InboxProcessContext context) {
		return "process " + context.consumer().queue();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(InboxProcessContext context) {
		InboxOutcome outcome = context.outcome();
		return KeyValues.of(QUEUE, context.consumer().queue(), MESSAGE_TYPE, context.consumer().messageType(), OUTCOME,
				(outcome != null) ? outcome.name().toLowerCase(Locale.ROOT) : "none");
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(InboxProcessContext context) {
		String id = context.message().messageId();
		String shown = (id == null) ? "none" : (id.length() > MAX_ID_LENGTH) ? id.substring(0, MAX_ID_LENGTH) : id;
		return KeyValues.of(MESSAGE_ID, shown, CONSUMER, context.consumer().consumerId());
	}

}
