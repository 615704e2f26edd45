package dev.waybill.inbox.observation;

import java.util.Objects;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;

/**
 * The context of a {@code waybill.inbox.process} observation: one delivery handled for one
 * consumer, inbox row and handler included. Its carrier is the delivery, whose headers
 * ({@code traceparent}, {@code tracestate}, {@code baggage}) a propagating tracing handler
 * continues (kind consumer); what the handler publishes through its consumer outbox is a child of
 * this observation.
 *
 * @since 0.1
 */
public class InboxProcessContext extends ReceiverContext<InboundMessage> {

	private final ConsumerRegistration<?> consumer;

	private @Nullable InboxOutcome outcome;

	/**
	 * Creates the context of one delivery.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 */
	public InboxProcessContext(ConsumerRegistration<?> consumer, InboundMessage message) {
		super((carrier, key) -> (carrier.headers().get(key) instanceof String value) ? value : null, Kind.CONSUMER);
		this.consumer = Objects.requireNonNull(consumer, "consumer must not be null");
		setCarrier(Objects.requireNonNull(message, "message must not be null"));
	}

	/**
	 * Returns the consumer the message arrived for.
	 * @return the consumer
	 */
	public ConsumerRegistration<?> consumer() {
		return this.consumer;
	}

	/**
	 * Returns the delivery.
	 * @return the delivery
	 */
	public InboundMessage message() {
		return Objects.requireNonNull(getCarrier());
	}

	/**
	 * Returns what the inbox committed for the delivery.
	 * @return the outcome, or {@literal null} while it works or when nothing was recorded
	 */
	public @Nullable InboxOutcome outcome() {
		return this.outcome;
	}

	/**
	 * Records the delivery's outcome; called by Waybill, not by applications.
	 * @param outcome the outcome
	 */
	public void outcome(InboxOutcome outcome) {
		this.outcome = outcome;
	}

}
