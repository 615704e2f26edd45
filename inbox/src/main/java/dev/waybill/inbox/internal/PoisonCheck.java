package dev.waybill.inbox.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.spi.MessageSerializer;

/**
 * Tells whether a delivery can ever be handled, for the single and the batched path alike: a
 * message of the consumer's type, with readable headers, whose body the serializer reads into the
 * consumer's payload type. Otherwise it is poison, and this says why.
 *
 * @since 0.1
 */
final class PoisonCheck {

	private final MessageSerializer serializer;

	/** The types each queue's consumers handle, quoted, for fault reasons: see {@link #describeQueues}. */
	private final Map<String, String> queueTypes = new ConcurrentHashMap<>();

	/** The payload type of each message type each queue's consumers handle: see {@link #describeQueues}. */
	private final Map<String, Map<String, String>> queuePayloads = new ConcurrentHashMap<>();

	PoisonCheck(MessageSerializer serializer) {
		this.serializer = serializer;
	}

	/**
	 * What the check found: the payload, or why the message is poison.
	 * @param payload the message as the handler gets it, {@literal null} for poison
	 * @param fault why the message is poison, {@literal null} when it is not
	 */
	record Verdict<T>(@Nullable T payload, @Nullable DeliveryFault fault) {
	}

	/**
	 * Checks a delivery whose message id is usable, and reads its body.
	 * @throws VirtualMachineError when reading the body ran out of memory or the like
	 */
	<T> Verdict<T> check(ConsumerRegistration<T> consumer, InboundMessage message) {
		if (!consumer.messageType().equals(message.messageType())) {
			String type = message.messageType();
			String reason = (type == null || type.isEmpty())
					? "the message has no type (AMQP property 'type'); queue '" + consumer.queue() + "' handles "
							+ handledTypes(consumer)
					: "no handler for type '" + DeliveryFault.shown(type) + "' on queue '" + consumer.queue() + "'; it handles "
							+ handledTypes(consumer) + unreadableSubtype(consumer, message);
			return poison(DeliveryFault.poison(reason, null));
		}
		String unreadable = unreadableHeaders(message);
		if (unreadable != null) {
			return poison(DeliveryFault.poison(unreadable + " (kept, undecoded, in header '"
					+ InboxHeaders.UNREADABLE_HEADERS + "')", null));
		}
		T payload;
		try {
			payload = read(consumer, message.body());
		}
		catch (Exception | Error ex) {
			// An Error too: what the payload's constructor or a deserializer throws (an AssertionError,
			// an ExceptionInInitializerError, a StackOverflowError on a deeply nested body) is the
			// message's. Thrown on, it left the delivery, and its lane's batch, unacknowledged until
			// the channel closed, and every redelivery failed the same way.
			if (ex instanceof Error error && DeliveryFault.fatal(error)) {
				throw error;
			}
			return poison(unreadable(consumer, message, ex));
		}
		if (payload == null) {
			return poison(unreadable(consumer, message, null));
		}
		return new Verdict<>(payload, null);
	}

	/**
	 * Returns the payload of a delivery of a batch, or {@literal null} when it is poison (faulted
	 * alone, by the single path, which tells why).
	 */
	@Nullable Object payloadInBatch(ConsumerRegistration<?> consumer, InboundMessage message) {
		if (canonicalUuid(message.messageId()) == null) {
			return null;
		}
		return check(consumer, message).payload();
	}

	/**
	 * Records which message types the consumers of each queue handle, so that a fault for a type
	 * none of them handles names them all.
	 */
	void describeQueues(ConsumerRegistry consumers) {
		consumers.endpoints().forEach((queue, registrations) -> this.queueTypes.put(queue, registrations.stream()
			.map((registration) -> "'" + registration.messageType() + "'")
			.distinct()
			.collect(Collectors.joining(", "))));
		consumers.endpoints().forEach((queue, registrations) -> {
			Map<String, String> payloads = new HashMap<>();
			registrations.forEach((registration) -> payloads.putIfAbsent(registration.messageType(),
					registration.payloadType().getTypeName()));
			this.queuePayloads.put(queue, Map.copyOf(payloads));
		});
	}

	/** The message id as a UUID when it is one in canonical form, else {@literal null}. */
	static @Nullable UUID canonicalUuid(@Nullable String text) {
		if (text == null || text.length() != 36) {
			return null;
		}
		try {
			UUID id = UUID.fromString(text);
			return id.toString().equalsIgnoreCase(text) ? id : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static <T> Verdict<T> poison(DeliveryFault fault) {
		return new Verdict<>(null, fault);
	}

	private String handledTypes(ConsumerRegistration<?> consumer) {
		String types = this.queueTypes.get(consumer.queue());
		return (types != null) ? types : "'" + consumer.messageType() + "'";
	}

	/**
	 * Why a message of a type the queue does not handle did not go to the handler of one of its
	 * Waybill supertypes ({@link MessageTypes#SUPERTYPES_HEADER}): that handler's payload type is an
	 * interface or abstract class, and the consumer has no class of the delivered type to read the
	 * body into (see {@link ConsumerRegistry#dispatch}); else an empty string.
	 */
	private String unreadableSubtype(ConsumerRegistration<?> consumer, InboundMessage message) {
		if (!(message.headers().get(MessageTypes.SUPERTYPES_HEADER) instanceof String supertypes)) {
			return "";
		}
		Map<String, String> payloads = this.queuePayloads.getOrDefault(consumer.queue(),
				Map.of(consumer.messageType(), consumer.payloadType().getTypeName()));
		for (String supertype : supertypes.split(",")) {
			String payload = payloads.get(supertype.trim());
			if (payload != null) {
				return ", its supertype '" + supertype.trim() + "' as " + payload + ", an interface or abstract "
						+ "class the body cannot be read into without a class of type '" + DeliveryFault.shown(message.messageType())
						+ "', and this service has none (add that class, or make the handler's type concrete)";
			}
		}
		return "";
	}

	/**
	 * Why the delivery's headers could not be read, when the receive endpoint set them aside (see
	 * {@link InboxHeaders#UNREADABLE_HEADERS}), else {@literal null}.
	 */
	private static @Nullable String unreadableHeaders(InboundMessage message) {
		if (!message.headers().containsKey(InboxHeaders.UNREADABLE_HEADERS)) {
			return null;
		}
		Object reason = message.headers().get(InboxHeaders.UNREADABLE_HEADERS_REASON);
		return (reason != null) ? reason.toString() : "its headers cannot be read";
	}

	@SuppressWarnings("unchecked") // the serializer read the body into the consumer's payload type
	private <T> @Nullable T read(ConsumerRegistration<T> consumer, byte[] body) throws Exception {
		if (consumer.payloadType() instanceof Class<?>) {
			return this.serializer.deserialize(body, consumer.payloadClass());
		}
		return (T) this.serializer.deserialize(body, consumer.payloadType());
	}

	private static DeliveryFault unreadable(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable Throwable ex) {
		return DeliveryFault.poison("the body cannot be read as " + consumer.payloadType().getTypeName() + " (content type '"
				+ DeliveryFault.shown(message.contentType()) + "')", ex);
	}

}
