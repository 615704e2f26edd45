package dev.waybill.outbox.observation;

import java.util.Objects;
import java.util.UUID;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import dev.waybill.outbox.spi.OutboxMessage;

/**
 * The context of a {@code waybill.relay.publish} observation: the relay publishing one stored
 * message to the broker, from the hand-over to the broker's confirm. Its carrier is the stored
 * message, whose headers hold the trace context captured when it was published in the business
 * transaction, so a propagating tracing handler makes the relay's span a child of that publish
 * (kind producer). The message reaches the broker with those headers, so its consumers continue the
 * same trace.
 *
 * @since 0.1
 */
public class RelayPublishContext extends ReceiverContext<OutboxMessage> {

	private final UUID scopeId;

	/**
	 * Creates the context of one message's publish.
	 * @param scopeId the scope the message belongs to
	 * @param message the stored message
	 */
	public RelayPublishContext(UUID scopeId, OutboxMessage message) {
		super((carrier, key) -> (carrier.headers().get(key) instanceof String value) ? value : null, Kind.PRODUCER);
		this.scopeId = Objects.requireNonNull(scopeId, "scopeId must not be null");
		setCarrier(Objects.requireNonNull(message, "message must not be null"));
	}

	/**
	 * Returns the message being published.
	 * @return the message
	 */
	public OutboxMessage message() {
		return Objects.requireNonNull(getCarrier());
	}

	/**
	 * Returns the id of the scope the message belongs to.
	 * @return the scope id
	 */
	public UUID scopeId() {
		return this.scopeId;
	}

}
