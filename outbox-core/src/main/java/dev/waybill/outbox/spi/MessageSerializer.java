package dev.waybill.outbox.spi;

/**
 * Turns messages into bodies and back. The default writes JSON with the application's Jackson
 * {@code JsonMapper}; declare a bean of this type to use another format.
 *
 * @since 0.1
 */
public interface MessageSerializer {

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

}
