package dev.waybill.test;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.test.Observations.Committed;
import dev.waybill.test.Observations.Consumed;
import dev.waybill.test.Observations.Relayed;

/**
 * Reads what {@link Observations} recorded back as {@link ObservedMessage}s and
 * {@link ObservedDelivery}s, the bodies deserialized into the classes a test asks for. A body that
 * does not read as the class is left out (messages) or has no payload (deliveries).
 *
 * @since 0.1
 */
final class ObservationReader {

	private final Observations observations;

	private final MessageSerializer serializer;

	ObservationReader(Observations observations, MessageSerializer serializer) {
		this.observations = observations;
		this.serializer = serializer;
	}

	/** The committed messages of one class, published ({@code sent} false) or sent, in commit order. */
	<T> List<ObservedMessage<T>> committed(boolean sent, Class<T> type) {
		List<ObservedMessage<T>> found = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			if (committed.sent() == sent && type.isInstance(committed.payload())) {
				found.add(observed(committed.message(), type.cast(committed.payload()), committed.at()));
			}
		}
		return found;
	}

	/** The messages committed by the transaction that committed {@code messageId}. */
	List<ObservedMessage<Object>> committedWith(UUID messageId) {
		long transaction = -1;
		for (Committed committed : this.observations.committed) {
			if (committed.message().messageId().equals(messageId)) {
				transaction = committed.transaction();
			}
		}
		List<ObservedMessage<Object>> together = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			if (committed.transaction() == transaction) {
				together.add(observed(committed.message(), committed.payload(), committed.at()));
			}
		}
		return together;
	}

	/** The messages of one type among those the relay settled one way ({@code relayed}). */
	<T> List<ObservedMessage<T>> relayed(List<Relayed> relayed, Class<T> type) {
		String name = MessageTypes.nameOf(type);
		List<ObservedMessage<T>> found = new ArrayList<>();
		for (Relayed message : relayed) {
			if (name.equals(message.message().messageType())) {
				T payload = read(message.message().body(), type);
				if (payload != null) {
					found.add(observed(message.message(), payload, message.at()));
				}
			}
		}
		return found;
	}

	/** Every delivery, read into its consumer's payload class. */
	List<ObservedDelivery<Object>> deliveries() {
		List<ObservedDelivery<Object>> all = new ArrayList<>();
		for (Consumed consumed : this.observations.consumed) {
			all.add(observed(consumed, Object.class, consumed.consumer().payloadClass()));
		}
		return all;
	}

	/** The deliveries of one type with one outcome, to a handler of {@code handler} (or any). */
	<T> List<ObservedDelivery<T>> deliveries(@Nullable Class<?> handler, Class<T> type, InboxOutcome outcome) {
		String name = MessageTypes.nameOf(type);
		List<ObservedDelivery<T>> found = new ArrayList<>();
		for (Consumed consumed : this.observations.consumed) {
			if (consumed.outcome() == outcome && ofType(consumed.message().messageType(), type, name)
					&& (handler == null || handler.isAssignableFrom(handlerClass(consumed.consumer())))) {
				found.add(observed(consumed, type, type));
			}
		}
		return found;
	}

	/** The class of a consumer's handler, the target class of a proxied bean. */
	static Class<?> handlerClass(ConsumerRegistration<?> consumer) {
		return AopProxyUtils.ultimateTargetClass(consumer.handler());
	}

	/**
	 * Whether a delivered message type is one of {@code type}: its name, or for {@link Fault} any
	 * fault event ({@code fault:<type>}), which is never named after Fault's class.
	 */
	static boolean ofType(@Nullable String messageType, Class<?> type, String name) {
		return name.equals(messageType) || (Fault.class.equals(type) && messageType != null
				&& messageType.startsWith(Fault.TYPE_PREFIX));
	}

	private <T> ObservedDelivery<T> observed(Consumed consumed, Class<T> type, Class<?> readAs) {
		InboundMessage message = consumed.message();
		// A Fault<T> is read with its generic argument, so that fault.message() is a T, not a map.
		Object payload = Fault.class.equals(readAs) ? read(message.body(), consumed.consumer().payloadType())
				: read(message.body(), readAs);
		return new ObservedDelivery<>(consumed.consumer().queue(), handlerClass(consumed.consumer()),
				message.messageId(), message.messageType(), message.headers(),
				type.isInstance(payload) ? type.cast(payload) : null, consumed.outcome(), consumed.byHarness(),
				consumed.at());
	}

	private static <T> ObservedMessage<T> observed(OutboxMessage message, T payload, Instant at) {
		return new ObservedMessage<>(message.messageId(), message.messageType(), message.destination(),
				message.routingKey(), message.headers(), message.correlationId(), message.conversationId(), payload, at);
	}

	private @Nullable Object read(byte[] body, Type type) {
		try {
			return this.serializer.deserialize(body, type);
		}
		catch (Exception ex) {
			return null;
		}
	}

	private <T> @Nullable T read(byte[] body, Class<T> type) {
		try {
			return this.serializer.deserialize(body, type);
		}
		catch (Exception ex) {
			return null;
		}
	}

}
