package dev.waybill.test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The envelope of a message {@link WaybillTestHarness#deliver(Class, Object, java.util.function.Consumer)
 * delivered by a test}: by default a new message id, no headers and no correlation or conversation id.
 *
 * @since 0.1
 */
public final class DeliveryOptions {

	private UUID messageId = UUID.randomUUID();

	private final Map<String, Object> headers = new LinkedHashMap<>();

	private @Nullable String correlationId;

	private @Nullable String conversationId;

	DeliveryOptions() {
	}

	/**
	 * Sets the message id, e.g. that of a message the application published, to deliver it to a
	 * handler as the broker would.
	 * @param messageId the id
	 * @return these options
	 */
	public DeliveryOptions messageId(UUID messageId) {
		this.messageId = Objects.requireNonNull(messageId, "messageId must not be null");
		return this;
	}

	/**
	 * Adds a header.
	 * @param name the header name
	 * @param value a string, number or boolean
	 * @return these options
	 */
	public DeliveryOptions header(String name, Object value) {
		this.headers.put(Objects.requireNonNull(name, "name must not be null"),
				Objects.requireNonNull(value, "value must not be null"));
		return this;
	}

	/**
	 * Sets the correlation id.
	 * @param correlationId the id
	 * @return these options
	 */
	public DeliveryOptions correlationId(@Nullable String correlationId) {
		this.correlationId = correlationId;
		return this;
	}

	/**
	 * Sets the conversation id.
	 * @param conversationId the id
	 * @return these options
	 */
	public DeliveryOptions conversationId(@Nullable String conversationId) {
		this.conversationId = conversationId;
		return this;
	}

	UUID messageId() {
		return this.messageId;
	}

	Map<String, Object> headers() {
		return this.headers;
	}

	@Nullable String correlationId() {
		return this.correlationId;
	}

	@Nullable String conversationId() {
		return this.conversationId;
	}

}
