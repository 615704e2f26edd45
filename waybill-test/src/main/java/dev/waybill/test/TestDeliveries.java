package dev.waybill.test;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.spi.MessageSerializer;

/**
 * Delivers a message to one of the application's handlers as the broker would, through the real
 * inbox ({@link DeliveryProcessor}) in a transaction of its own, and again for
 * {@link Delivery#redeliver()}. While it delivers, {@link Observations} marks what the inbox
 * reports as delivered by the test, owed to no queue.
 *
 * @since 0.1
 */
final class TestDeliveries {

	private final Supplier<List<ConsumerRegistration<?>>> consumers;

	private final Supplier<@Nullable DeliveryProcessor> processor;

	private final MessageSerializer serializer;

	TestDeliveries(Supplier<List<ConsumerRegistration<?>>> consumers, Supplier<@Nullable DeliveryProcessor> processor,
			MessageSerializer serializer) {
		this.consumers = consumers;
		this.processor = processor;
		this.serializer = serializer;
	}

	Delivery deliver(Class<?> handler, Object message, Consumer<DeliveryOptions> options) {
		Objects.requireNonNull(message, "message must not be null");
		// A fault event travels as fault:<the failed message's type>, not as Fault's class name.
		String type = (message instanceof Fault<?> fault) ? Fault.typeName(fault.messageType())
				: MessageTypes.nameOf(message);
		ConsumerRegistration<?> consumer = consumerOf(handler, message.getClass(), type);
		DeliveryOptions envelope = new DeliveryOptions();
		options.accept(envelope);
		byte[] body;
		try {
			body = this.serializer.serialize(message);
		}
		catch (Exception ex) {
			throw new IllegalArgumentException("Could not serialize " + message + ": " + ex.getMessage(), ex);
		}
		InboundMessage inbound = new InboundMessage(envelope.messageId().toString(), type,
				this.serializer.contentType(), envelope.headers(), body, envelope.correlationId(),
				envelope.conversationId(), type, "");
		return deliver(consumer, inbound);
	}

	Delivery deliver(ConsumerRegistration<?> consumer, InboundMessage message) {
		DeliveryProcessor inbox = this.processor.get();
		if (inbox == null) {
			throw new IllegalStateException("The application has no inbox: it declares no MessageHandler bean");
		}
		Observations.HARNESS_DELIVERY.set(Boolean.TRUE);
		try {
			return new Delivery(this, consumer, message, inbox.process(consumer, message));
		}
		finally {
			Observations.HARNESS_DELIVERY.remove();
		}
	}

	/** The one consumer whose handler is a {@code handler} and that takes {@code messageClass}. */
	ConsumerRegistration<?> consumerOf(Class<?> handler, Class<?> messageClass, String messageType) {
		List<ConsumerRegistration<?>> all = this.consumers.get();
		List<ConsumerRegistration<?>> matching = all.stream()
			.filter((consumer) -> handler.isAssignableFrom(ObservationReader.handlerClass(consumer)))
			.filter((consumer) -> consumer.payloadClass().isAssignableFrom(messageClass))
			.filter((consumer) -> !Fault.class.equals(messageClass) || consumer.messageType().equals(messageType))
			.toList();
		if (matching.size() != 1) {
			throw new IllegalArgumentException((matching.isEmpty() ? "No consumer" : "More than one consumer")
					+ " of handler " + handler.getName() + " for " + messageClass.getName() + "; the consumers are "
					+ all.stream()
						.map((c) -> "'" + c.queue() + "' (" + ObservationReader.handlerClass(c).getSimpleName() + ", "
								+ c.payloadClass().getSimpleName() + ")")
						.toList());
		}
		return matching.get(0);
	}

}
