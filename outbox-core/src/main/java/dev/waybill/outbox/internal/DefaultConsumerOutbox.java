package dev.waybill.outbox.internal;

import java.util.Objects;
import java.util.UUID;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * The {@link ConsumerOutbox} of the default publisher: it marks the outbox scope of the current
 * Spring transaction, the same scope a {@link DefaultOutboxPublisher} on the same
 * {@link OutboxWriter} buffers into.
 *
 * @since 0.1
 */
public final class DefaultConsumerOutbox implements ConsumerOutbox {

	private final OutboxWriter writer;

	private final RelayWakeUp wakeUp;

	/**
	 * Creates the consumer outbox.
	 * @param writer the writer of the publisher whose scope it marks
	 * @param wakeUp signalled after each commit that wrote messages
	 */
	public DefaultConsumerOutbox(OutboxWriter writer, RelayWakeUp wakeUp) {
		this.writer = Objects.requireNonNull(writer, "writer must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
	}

	@Override
	public void bindInbound(UUID inboundMessageId, String consumerId) {
		Objects.requireNonNull(inboundMessageId, "inboundMessageId must not be null");
		Objects.requireNonNull(consumerId, "consumerId must not be null");
		OutboxTransaction.current("consumer outbox of " + inboundMessageId, this.writer, this.wakeUp)
			.bindInbound(inboundMessageId, consumerId);
	}

	@Override
	public boolean writesInboundNow() {
		return true;
	}

	@Override
	public void writeInboundNow() {
		OutboxTransaction.current("consumer outbox", this.writer, this.wakeUp).writeInboundNow();
	}

	@Override
	public void discardInbound() {
		OutboxTransaction.current("consumer outbox", this.writer, this.wakeUp).discardInbound();
	}

}
