package dev.waybill.kernel;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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

	/**
	 * The header that lists a message's supertypes' type names, comma-separated, nearest first;
	 * absent when it has none. The transport binds the message type's exchange to theirs, and a
	 * consumer of a supertype dispatches by it.
	 * @since 0.1
	 */
	public static final String SUPERTYPES_HEADER = "waybill-message-supertypes";

	/**
	 * The header that names the Java class of a message that has Waybill supertypes (its binary
	 * name), so that a consumer of a supertype can read the body into it when it has the class. A
	 * hint only: the consumer uses it when the class's message type name is the delivered one.
	 * @since 0.1
	 */
	public static final String CLASS_HEADER = "waybill-message-class";

	private static final ClassValue<List<String>> SUPERTYPES = new ClassValue<>() {
		@Override
		protected List<String> computeValue(Class<?> type) {
			return resolveSupertypes(type);
		}
	};

	private MessageTypes() {
	}

	/**
	 * Returns the message type names of {@code type}'s Waybill supertypes: every superclass and
	 * interface, transitively, that carries {@link MessageType @MessageType}, nearest first
	 * (breadth first: the superclass, then the interfaces, in declaration order). Supertypes
	 * without the annotation take no part, so {@code Serializable} or a framework base class never
	 * becomes an exchange.
	 * @param type the message class
	 * @return the names, empty when there are none
	 * @since 0.1
	 */
	public static List<String> supertypesOf(Class<?> type) {
		return SUPERTYPES.get(type);
	}

	private static List<String> resolveSupertypes(Class<?> type) {
		Set<String> names = new LinkedHashSet<>();
		Set<Class<?>> seen = new LinkedHashSet<>();
		Deque<Class<?>> pending = new ArrayDeque<>();
		enqueueParents(type, pending);
		while (!pending.isEmpty()) {
			Class<?> current = pending.removeFirst();
			if (!seen.add(current)) {
				continue;
			}
			if (current.isAnnotationPresent(MessageType.class)) {
				names.add(nameOf(current));
			}
			enqueueParents(current, pending);
		}
		names.remove(nameOf(type));
		return List.copyOf(new ArrayList<>(names));
	}

	private static void enqueueParents(Class<?> type, Deque<Class<?>> pending) {
		if (type.getSuperclass() != null && type.getSuperclass() != Object.class) {
			pending.addLast(type.getSuperclass());
		}
		for (Class<?> contract : type.getInterfaces()) {
			pending.addLast(contract);
		}
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
