package dev.waybill.inbox;

import java.lang.reflect.Type;
import java.util.Objects;

import org.springframework.core.ResolvableType;

import dev.waybill.kernel.MessageTypes;

/**
 * What a {@link ConsumerRegistration} accepts and reads its bodies into: one message type name, and
 * the class (or, for a fault handler, the parameterized {@code Fault<M>}) it stands for.
 *
 * @param payloadClass the class the bodies are read into
 * @param payloadType the type the bodies are read into: the payload class, or {@code Fault<M>} with
 * its argument
 * @param messageType the message type name accepted
 */
record ConsumedType(Class<?> payloadClass, Type payloadType, String messageType) {

	/** The longest message type name AMQP carries in a short string. */
	private static final int MAX_TYPE_NAME_LENGTH = 255;

	/**
	 * The type of a handler of {@code payloadClass}'s messages.
	 * @param payloadClass the class, not {@link Fault}
	 * @return the type
	 * @throws IllegalArgumentException when the class is {@link Fault}
	 * @throws dev.waybill.outbox.InvalidMessageException when the class has no valid message type name
	 */
	static ConsumedType of(Class<?> payloadClass) {
		Objects.requireNonNull(payloadClass, "payloadClass must not be null");
		if (payloadClass == Fault.class) {
			throw new IllegalArgumentException("A Fault handler needs the type of the failed messages: register it "
					+ "with ConsumerRegistration.ofFault(queue, TheMessage.class, handler)");
		}
		return new ConsumedType(payloadClass, payloadClass, MessageTypes.nameOf(payloadClass));
	}

	/**
	 * The type of a handler of the fault events of {@code messageClass}'s messages.
	 * @param messageClass the class of the failed messages
	 * @return the type
	 * @throws IllegalArgumentException when the fault's type name is too long
	 */
	static ConsumedType ofFault(Class<?> messageClass) {
		String type = Fault.typeName(MessageTypes.nameOf(messageClass));
		if (type.length() > MAX_TYPE_NAME_LENGTH) {
			throw new IllegalArgumentException("The fault type name '" + type.substring(0, 40) + "...' of "
					+ messageClass.getName() + " is over 255 characters; shorten its @MessageType");
		}
		return new ConsumedType(Fault.class, ResolvableType.forClassWithGenerics(Fault.class, messageClass).getType(),
				type);
	}

	/**
	 * The type of one subtype of this type's class, accepted under its own message type name.
	 * @param messageType the subtype's message type name
	 * @param subtype the subtype
	 * @return the type
	 * @throws IllegalArgumentException when {@code subtype} is not a subtype of the payload class
	 */
	ConsumedType forSubtype(String messageType, Class<?> subtype) {
		if (!this.payloadClass.isAssignableFrom(subtype)) {
			throw new IllegalArgumentException(subtype + " is not a " + this.payloadClass);
		}
		return new ConsumedType(subtype, subtype, messageType);
	}

}
