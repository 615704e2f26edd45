package dev.waybill.outbox.observation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code waybill.outbox.publish} observation: a message published in the business
 * transaction. Its carrier collects the headers a propagating tracing handler injects
 * ({@code traceparent}, {@code tracestate}, {@code baggage}); they are stored with the message.
 *
 * @since 0.1
 */
public class OutboxPublishContext extends SenderContext<Map<String, String>> {

	private final String messageType;

	private String destination;

	private @Nullable UUID messageId;

	/**
	 * Creates the context of one publish.
	 * @param messageType the message type
	 * @param destination the exchange the message goes to
	 */
	public OutboxPublishContext(String messageType, String destination) {
		super((carrier, key, value) -> {
			if (carrier != null && value != null) {
				carrier.put(key, value);
			}
		}, Kind.PRODUCER);
		this.messageType = Objects.requireNonNull(messageType, "messageType must not be null");
		this.destination = Objects.requireNonNull(destination, "destination must not be null");
		setCarrier(new LinkedHashMap<>());
	}

	/**
	 * Returns the headers the tracing handlers injected so far.
	 * @return the trace context headers, empty without a tracer
	 */
	public Map<String, String> headers() {
		Map<String, String> carrier = getCarrier();
		return (carrier != null) ? carrier : Map.of();
	}

	/**
	 * Returns the message type.
	 * @return the message type
	 */
	public String messageType() {
		return this.messageType;
	}

	/**
	 * Returns the exchange the message goes to.
	 * @return the destination
	 */
	public String destination() {
		return this.destination;
	}

	/**
	 * Returns the message id, once the message is built.
	 * @return the id, or {@literal null} before the message is built or when building it failed
	 */
	public @Nullable UUID messageId() {
		return this.messageId;
	}

	/**
	 * Records the built message's id and destination; called by Waybill, not by applications.
	 * @param messageId the message id
	 * @param destination the destination exchange
	 */
	public void built(UUID messageId, String destination) {
		this.messageId = messageId;
		this.destination = destination;
	}

}
