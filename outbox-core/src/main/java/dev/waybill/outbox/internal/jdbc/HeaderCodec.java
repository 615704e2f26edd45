package dev.waybill.outbox.internal.jdbc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.kernel.PostgresText;

/**
 * Writes message headers into the {@code jsonb} column {@code outbox_message.headers} and reads
 * them back with the same Java types, so a forwarded message keeps its AMQP field types.
 * <p>
 * Strings, booleans, {@code Integer}s, {@code Long}s beyond the int range, finite {@code Double}s
 * and {@code BigInteger}s are plain JSON, as are lists and maps (nested tables) of header values,
 * so the column reads naturally in SQL ({@code headers->>'tenant'}). A value that plain JSON would
 * read back as another type, or that PostgreSQL refuses, is a tagged object
 * <code>{"$amqp": tag, "value": ...}</code>:
 * <ul>
 * <li>{@code string}: a string with U+0000, the Base64 of its UTF-8</li>
 * <li>{@code bytes}: a {@code byte[]}, in Base64</li>
 * <li>{@code timestamp}: a {@link Date}, as an ISO-8601 instant</li>
 * <li>{@code long}, {@code short}, {@code byte}: a number that would read back as an {@code Integer}</li>
 * <li>{@code float}, {@code double}: a {@code Float}, or a {@code Double} that is NaN or infinite,
 * as its Java text</li>
 * <li>{@code decimal}: a {@link BigDecimal}, as its exact text</li>
 * <li>{@code table}: a map that has a key {@code $amqp} or a key PostgreSQL refuses, as a list of
 * {@code [key, value]} pairs, each encoded like a value; so no header map can be mistaken for a
 * tagged value</li>
 * </ul>
 * Unpaired surrogates, which UTF-8 cannot carry, are stored as U+FFFD. Other values are stored as
 * their {@code toString()}. Reading is lenient: an object with an unknown tag or a malformed value
 * reads as the map it is.
 */
final class HeaderCodec {

	static final String TAG = "$amqp";

	static final String VALUE = "value";

	private static final String EMPTY = "{}";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private HeaderCodec() {
	}

	/**
	 * Returns the JSON of a header map.
	 * @param headers the headers
	 * @return the JSON text for the {@code jsonb} column
	 */
	static String write(Map<String, ?> headers) {
		if (headers.isEmpty()) {
			return EMPTY;
		}
		return JSON.writeValueAsString(encode(headers));
	}

	/**
	 * Reads headers written by {@link #write(Map)}, or plain JSON written before tags existed.
	 * @param json the column's text
	 * @return the headers, in their stored order
	 * @throws IllegalArgumentException when the JSON is not an object
	 */
	static Map<String, Object> read(String json) {
		// Most messages carry no headers: no JSON parsing for them (the relay reads every row).
		if (EMPTY.equals(json)) {
			return Map.of();
		}
		Object headers = decode(JSON.readValue(json, Object.class));
		if (!(headers instanceof Map<?, ?> map)) {
			throw new IllegalArgumentException("outbox_message.headers must be a JSON object, was: " + json);
		}
		Map<String, Object> result = new LinkedHashMap<>();
		map.forEach((name, value) -> {
			if (value != null) {
				result.put(String.valueOf(name), value);
			}
		});
		return result;
	}

	static @Nullable Object encode(@Nullable Object value) {
		if (value == null || value instanceof Boolean || value instanceof Integer || value instanceof BigInteger) {
			return value;
		}
		if (value instanceof String text) {
			String wellFormed = PostgresText.wellFormed(text);
			return (wellFormed.indexOf('\0') < 0) ? wellFormed
					: tagged("string", base64(wellFormed.getBytes(StandardCharsets.UTF_8)));
		}
		if (value instanceof Long number) {
			return (number == number.intValue()) ? tagged("long", number) : number;
		}
		if (value instanceof Short number) {
			return tagged("short", number.intValue());
		}
		if (value instanceof Byte number) {
			return tagged("byte", number.intValue());
		}
		if (value instanceof Double number) {
			return Double.isFinite(number) ? number : tagged("double", number.toString());
		}
		if (value instanceof Float number) {
			return tagged("float", number.toString());
		}
		if (value instanceof BigDecimal number) {
			return tagged("decimal", number.toString());
		}
		if (value instanceof Date date) {
			return tagged("timestamp", date.toInstant().toString());
		}
		if (value instanceof byte[] bytes) {
			return tagged("bytes", base64(bytes));
		}
		if (value instanceof Map<?, ?> map) {
			return encodeMap(map);
		}
		if (value instanceof List<?> list) {
			return encodeList(list);
		}
		if (value instanceof Object[] array) {
			return encodeList(Arrays.asList(array));
		}
		return encode(value.toString());
	}

	private static Object encodeMap(Map<?, ?> map) {
		boolean plain = true;
		for (Object key : map.keySet()) {
			String name = String.valueOf(key);
			plain = plain && !TAG.equals(name) && PostgresText.storable(name);
		}
		if (plain) {
			Map<String, @Nullable Object> encoded = new LinkedHashMap<>();
			map.forEach((key, value) -> encoded.put(String.valueOf(key), encode(value)));
			return encoded;
		}
		List<List<@Nullable Object>> entries = new ArrayList<>();
		map.forEach((key, value) -> entries.add(Arrays.asList(encode(String.valueOf(key)), encode(value))));
		return tagged("table", entries);
	}

	private static List<@Nullable Object> encodeList(List<?> list) {
		List<@Nullable Object> encoded = new ArrayList<>(list.size());
		list.forEach((item) -> encoded.add(encode(item)));
		return encoded;
	}

	static @Nullable Object decode(@Nullable Object json) {
		if (json instanceof Map<?, ?> map) {
			if (map.get(TAG) instanceof String tag) {
				Object value = decodeTagged(tag, map.get(VALUE));
				if (value != null) {
					return value;
				}
			}
			Map<String, @Nullable Object> decoded = new LinkedHashMap<>();
			map.forEach((key, value) -> decoded.put(String.valueOf(key), decode(value)));
			return decoded;
		}
		if (json instanceof List<?> list) {
			List<@Nullable Object> decoded = new ArrayList<>(list.size());
			list.forEach((item) -> decoded.add(decode(item)));
			return decoded;
		}
		return json;
	}

	/**
	 * Returns the value a tagged object stands for, or {@literal null} when the tag is unknown or
	 * the value malformed (the object then reads as a plain map).
	 */
	private static @Nullable Object decodeTagged(String tag, @Nullable Object value) {
		try {
			return switch (tag) {
				case "string" -> new String(Base64.getDecoder().decode((String) value), StandardCharsets.UTF_8);
				case "bytes" -> Base64.getDecoder().decode((String) value);
				case "timestamp" -> Date.from(Instant.parse((String) value));
				case "long" -> ((Number) value).longValue();
				case "short" -> ((Number) value).shortValue();
				case "byte" -> ((Number) value).byteValue();
				case "float" -> Float.parseFloat((String) value);
				case "double" -> Double.parseDouble((String) value);
				case "decimal" -> new BigDecimal((String) value);
				case "table" -> decodeTable((List<?>) value);
				default -> null;
			};
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static Map<String, @Nullable Object> decodeTable(List<?> entries) {
		Map<String, @Nullable Object> table = new LinkedHashMap<>();
		for (Object entry : entries) {
			List<?> pair = (List<?>) entry;
			if (pair.size() != 2) {
				throw new IllegalArgumentException("not a [key, value] pair: " + pair);
			}
			table.put(String.valueOf(decode(pair.get(0))), decode(pair.get(1)));
		}
		return table;
	}

	private static Map<String, Object> tagged(String tag, Object value) {
		Map<String, Object> tagged = new LinkedHashMap<>();
		tagged.put(TAG, tag);
		tagged.put(VALUE, value);
		return tagged;
	}

	private static String base64(byte[] bytes) {
		return Base64.getEncoder().encodeToString(bytes);
	}

}
