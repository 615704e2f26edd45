package dev.waybill.outbox.internal;

import java.util.Objects;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.outbox.spi.MessageSerializer;

/**
 * Writes and reads JSON bodies with Jackson.
 *
 * @since 0.1
 */
public final class JacksonMessageSerializer implements MessageSerializer {

	/** The content type of the bodies this serializer writes. */
	public static final String CONTENT_TYPE = "application/json";

	private final ObjectMapper mapper;

	/**
	 * Creates a serializer with Jackson's defaults.
	 */
	public JacksonMessageSerializer() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Creates a serializer with the given mapper, typically the application's.
	 * @param mapper the mapper, must not be {@literal null}
	 */
	public JacksonMessageSerializer(ObjectMapper mapper) {
		this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
	}

	@Override
	public String contentType() {
		return CONTENT_TYPE;
	}

	@Override
	public byte[] serialize(Object message) {
		return this.mapper.writeValueAsBytes(message);
	}

	@Override
	public <T> T deserialize(byte[] body, Class<T> type) {
		return this.mapper.readValue(body, type);
	}

	@Override
	public Object deserialize(byte[] body, java.lang.reflect.Type type) {
		return this.mapper.readValue(body, this.mapper.getTypeFactory().constructType(type));
	}

}
