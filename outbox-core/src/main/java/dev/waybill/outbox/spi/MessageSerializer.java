package dev.waybill.outbox.spi;

import tools.jackson.databind.json.JsonMapper;

import dev.waybill.outbox.internal.JacksonMessageSerializer;

/**
 * Turns messages into bodies and back. The default writes JSON with the application's Jackson
 * {@code JsonMapper}, so the application's {@code spring.jackson.*} settings are part of its
 * messages' wire format; declare a bean of this type to use a mapper of Waybill's own
 * ({@link #json()}, {@link #json(JsonMapper)}) or another format.
 *
 * @since 0.1
 */
public interface MessageSerializer {

	/**
	 * Returns the JSON serializer with Jackson's defaults, whatever the application's mapper: a
	 * wire format that {@code spring.jackson.*} settings made for the application's web API do
	 * not change.
	 * @return the serializer
	 * @since 0.1
	 */
	static MessageSerializer json() {
		return new JacksonMessageSerializer();
	}

	/**
	 * Returns the JSON serializer with the given mapper, e.g. one configured for message contracts
	 * alone (modules, naming, what a reader tolerates).
	 * @param mapper the mapper, must not be {@literal null}
	 * @return the serializer
	 * @since 0.1
	 */
	static MessageSerializer json(JsonMapper mapper) {
		return new JacksonMessageSerializer(mapper);
	}

	/**
	 * The MIME type of the bodies this serializer writes, stored with each message.
	 * @return the content type, e.g. {@code application/json}
	 */
	String contentType();

	/**
	 * Serializes a message.
	 * @param message the message, never {@literal null}
	 * @return the body
	 * @throws Exception when the message cannot be serialized; the publish fails with it as cause
	 */
	byte[] serialize(Object message) throws Exception;

	/**
	 * Reads a body written by {@link #serialize(Object)}.
	 * @param <T> the message type
	 * @param body the body
	 * @param type the class to read into
	 * @return the message
	 * @throws Exception when the body is not a valid {@code type}
	 */
	<T> T deserialize(byte[] body, Class<T> type) throws Exception;

	/**
	 * Reads a body into a generic type, such as {@code Fault<OrderPlaced>} for the inbox's fault
	 * handlers. By default reads a plain class with {@link #deserialize(byte[], Class)} and refuses
	 * any other type.
	 * @param body the body
	 * @param type the type to read into
	 * @return the message
	 * @throws Exception when the body is not a valid {@code type}, or this serializer cannot read
	 * generic types
	 * @since 0.1
	 */
	default Object deserialize(byte[] body, java.lang.reflect.Type type) throws Exception {
		if (type instanceof Class<?> plain) {
			return deserialize(body, plain);
		}
		throw new UnsupportedOperationException(getClass().getName() + " cannot read the generic type " + type);
	}

}
