package dev.waybill.kernel;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Turns bodies and header values into text an operator can read, bounded in size.
 *
 * @since 0.1
 */
public final class BodyPreviews {

	/** The bytes of a body shown by default. */
	public static final int DEFAULT_PREVIEW_BYTES = 4096;

	/**
	 * The most body bytes one preview may ask for, the same for an outbox scope and an error queue.
	 * @since 0.1
	 */
	public static final int MAX_PREVIEW_BYTES = 65536;

	/** The longest header value shown, in characters. */
	public static final int MAX_HEADER_CHARS = 2000;

	private BodyPreviews() {
	}

	/**
	 * Returns the text of the first bytes of a body: UTF-8 when they decode as UTF-8 (a multi-byte
	 * character cut at the end is dropped), else {@code base64:} and their Base64.
	 * @param bytes the bytes to show (already cut to the preview size)
	 * @param truncated whether more bytes followed
	 * @return the preview
	 */
	public static String text(byte[] bytes, boolean truncated) {
		for (int drop = 0; drop <= (truncated ? Math.min(3, bytes.length) : 0); drop++) {
			try {
				return StandardCharsets.UTF_8.newDecoder()
					.onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT)
					.decode(ByteBuffer.wrap(bytes, 0, bytes.length - drop))
					.toString();
			}
			catch (CharacterCodingException ex) {
				// try again without a cut character at the end
			}
		}
		return "base64:" + Base64.getEncoder().encodeToString(bytes);
	}

	/**
	 * Returns headers as text, each value cut to {@value #MAX_HEADER_CHARS} characters.
	 * @param headers the headers
	 * @return the headers as text, in their order
	 */
	public static Map<String, String> headers(Map<String, ?> headers) {
		Map<String, String> text = new LinkedHashMap<>();
		headers.forEach((name, value) -> text.put(name, value(value)));
		return text;
	}

	private static String value(@Nullable Object value) {
		String text;
		if (value == null) {
			text = "";
		}
		else if (value instanceof byte[] bytes) {
			text = "base64:" + Base64.getEncoder().encodeToString(bytes);
		}
		else if (value instanceof Date date) {
			text = date.toInstant().toString();
		}
		else {
			text = value.toString();
		}
		return (text.length() > MAX_HEADER_CHARS) ? text.substring(0, MAX_HEADER_CHARS) + "..." : text;
	}

}
