package dev.waybill.outbox.internal;

import java.util.regex.Pattern;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.MessageType;

/**
 * Resolves the message type name of a class: its {@link MessageType @MessageType} value, else its
 * canonical name. Names are checked once per class and cached.
 *
 * @since 0.1
 */
public final class MessageTypes {

	private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,255}");

	private static final ClassValue<String> NAMES = new ClassValue<>() {
		@Override
		protected String computeValue(Class<?> type) {
			return resolve(type);
		}
	};

	private MessageTypes() {
	}

	/**
	 * Returns the message type name of {@code type}.
	 * @param type the message class
	 * @return the message type name
	 * @throws InvalidMessageException when the class has an invalid {@code @MessageType}, or none
	 * and no canonical name (an anonymous, local or hidden class)
	 */
	public static String nameOf(Class<?> type) {
		return NAMES.get(type);
	}

	/**
	 * Returns the message type name of {@code message}'s class.
	 * @param message the message
	 * @return the message type name
	 */
	public static String nameOf(Object message) {
		return nameOf(message.getClass());
	}

	private static String resolve(Class<?> type) {
		MessageType annotation = type.getAnnotation(MessageType.class);
		if (annotation != null) {
			String name = annotation.value();
			if (!VALID_NAME.matcher(name).matches()) {
				throw new InvalidMessageException(name, "@MessageType on " + type.getName() + " must be 1 to 255 "
						+ "letters, digits, '-', '_', '.' or ':'", null);
			}
			return name;
		}
		String canonical = type.getCanonicalName();
		if (canonical == null || type.isHidden()) {
			throw new InvalidMessageException(type.getName(), "an anonymous, local or hidden class has no stable "
					+ "name; use a top-level or nested class, or annotate it with @MessageType(\"...\")", null);
		}
		return canonical;
	}

}
