package dev.waybill.kernel;

import org.jspecify.annotations.Nullable;

/**
 * Makes text that came from outside (a message's id, type or headers, an exception's message) safe
 * to store in PostgreSQL and readable in the messages Waybill writes about it. PostgreSQL refuses
 * the character U+0000 in {@code text} and {@code jsonb}, and a Java string may hold unpaired
 * surrogates that UTF-8 cannot encode; either would make the statement that records what happened
 * to a message fail every time it is retried.
 * <p>
 * Every Waybill writer that stores untrusted text into its own columns goes through
 * {@link #column(String)} or {@link #column(String, int)}; header values are stored losslessly
 * instead (see {@link dev.waybill.outbox.spi.OutboxMessage#headers()}).
 *
 * @since 0.1
 */
public final class PostgresText {

	/** Stands for a character that cannot be stored. */
	public static final char REPLACEMENT = '\uFFFD';

	private PostgresText() {
	}

	/**
	 * Returns {@code text} with every U+0000 and every unpaired surrogate replaced by U+FFFD, so
	 * PostgreSQL accepts it in a {@code text} column.
	 * @param text the text, may be {@literal null}
	 * @return the storable text, the same instance when nothing needed replacing, {@literal null}
	 * for {@literal null}
	 */
	public static @Nullable String column(@Nullable String text) {
		return (text == null || storable(text)) ? text : replace(text, true);
	}

	/**
	 * Returns {@code text} made storable like {@link #column(String)} and cut to at most
	 * {@code maxLength} characters, never between the two halves of a surrogate pair.
	 * @param text the text
	 * @param maxLength the most characters to keep, at least 1
	 * @return the storable text
	 */
	public static String column(String text, int maxLength) {
		return prefix(column(text), maxLength);
	}

	/**
	 * Returns at most the first {@code maxLength} characters of {@code text}, never ending between
	 * the two halves of a surrogate pair.
	 * @param text the text
	 * @param maxLength the most characters to keep, at least 1
	 * @return the text itself when it is short enough, else its prefix
	 */
	public static String prefix(String text, int maxLength) {
		if (text.length() <= maxLength) {
			return text;
		}
		int end = Character.isHighSurrogate(text.charAt(maxLength - 1)) ? maxLength - 1 : maxLength;
		return text.substring(0, end);
	}

	/**
	 * Tells whether {@code text} can be stored as it is: no U+0000, no unpaired surrogate.
	 * @param text the text
	 * @return whether PostgreSQL stores it unchanged
	 */
	public static boolean storable(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\0') {
				return false;
			}
			if (Character.isSurrogate(c)) {
				if (!Character.isHighSurrogate(c) || i + 1 >= text.length()
						|| !Character.isLowSurrogate(text.charAt(i + 1))) {
					return false;
				}
				i++;
			}
		}
		return true;
	}

	/**
	 * Returns {@code text} with every unpaired surrogate replaced by U+FFFD, as UTF-8 (and so AMQP)
	 * would carry it; U+0000 is kept.
	 */
	public static String wellFormed(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (Character.isSurrogate(text.charAt(i))) {
				return replace(text, false);
			}
		}
		return text;
	}

	private static String replace(String text, boolean nul) {
		StringBuilder safe = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				safe.append(c).append(text.charAt(++i));
			}
			else {
				safe.append(((nul && c == '\0') || Character.isSurrogate(c)) ? REPLACEMENT : c);
			}
		}
		return safe.toString();
	}

	/**
	 * Returns {@code text} for quoting in an error message or a fault header: control characters
	 * (U+0000 among them) and unpaired surrogates are written as Java escapes ({@code \u0000}), and
	 * text longer than {@code maxLength} characters is cut and ends with {@code ...}.
	 * @param text the text to quote
	 * @param maxLength the most characters of {@code text} to show, at least 1
	 * @return the readable, storable text
	 */
	public static String readable(String text, int maxLength) {
		StringBuilder shown = new StringBuilder(Math.min(text.length(), maxLength) + 8);
		int end = Math.min(text.length(), maxLength);
		for (int i = 0; i < end; i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				if (i + 1 < end) {
					shown.append(c).append(text.charAt(++i));
				}
				else {
					end = i; // keep the pair whole: cut before it
				}
			}
			else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
				shown.append(String.format("\\u%04x", (int) c));
			}
			else {
				shown.append(c);
			}
		}
		if (end < text.length()) {
			shown.append("...");
		}
		return shown.toString();
	}

}
