package dev.waybill.inbox.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;

/**
 * Registers every {@link MessageHandler} bean: its message type from the generic of its class (the
 * target class behind an AOP proxy), its queue from {@link Consumer @Consumer} or its class name.
 * Handlers naming one queue are registered on one receive endpoint, which {@link EndpointDefinition}
 * makes. Every problem fails start-up naming the bean or the property.
 */
final class ConsumerDiscovery {

	private ConsumerDiscovery() {
	}

	static ConsumerRegistry discover(ListableBeanFactory beans, WaybillInboxProperties properties) {
		Map<String, List<Found>> byQueue = new LinkedHashMap<>();
		for (String name : beans.getBeanNamesForType(MessageHandler.class)) {
			Found found = find(name, beans.getBean(name, MessageHandler.class));
			List<Found> endpoint = byQueue.computeIfAbsent(found.queue(), (queue) -> new ArrayList<>());
			for (Found other : endpoint) {
				if (other.messageClass().equals(found.messageClass())
						&& java.util.Objects.equals(other.failedClass(), found.failedClass())) {
					throw new IllegalStateException("MessageHandler beans '" + other.bean() + "' and '" + name
							+ "' both handle " + found.describeType() + " on queue '" + found.queue()
							+ "'; a queue has one handler per message type. Set @Consumer(queue = \"...\") on one "
							+ "of them to a queue of its own.");
				}
			}
			endpoint.add(found);
		}
		for (String queue : properties.getEndpoints().keySet()) {
			if (!byQueue.containsKey(queue)) {
				String name = WaybillInboxProperties.PREFIX + ".endpoints." + queue;
				throw new InvalidConfigurationPropertyValueException(name, queue, "No MessageHandler consumes queue '"
						+ queue + "'; the consumed queues are " + byQueue.keySet() + ". Fix the queue name in " + name
						+ ".*, or remove it.");
			}
		}
		List<ReceiveEndpoint> endpoints = new ArrayList<>();
		byQueue.forEach((queue, handlers) -> {
			ReceiveEndpoint endpoint = EndpointDefinition.resolve(queue, handlers, properties);
			for (Found found : handlers) {
				endpoint = (found.failedClass() != null) ? handleFault(endpoint, found.failedClass(), found.handler())
						: handle(endpoint, found.messageClass(), found.handler());
			}
			endpoints.add(endpoint);
		});
		return ConsumerRegistry.ofEndpoints(endpoints);
	}

	private static Found find(String name, MessageHandler<?> handler) {
		Class<?> handlerClass = AopProxyUtils.ultimateTargetClass(handler);
		ResolvableType messageType = ResolvableType.forClass(handlerClass).as(MessageHandler.class).getGeneric(0);
		Class<?> messageClass = messageType.resolve();
		if (messageClass == null || messageClass == Object.class) {
			throw new IllegalStateException("Cannot tell which message type MessageHandler bean '" + name + "' ("
					+ handlerClass.getName() + ") handles: its class does not fix T of MessageHandler<T>, so the "
					+ "inbox cannot read message bodies for it. Implement MessageHandler<YourMessage> in a named "
					+ "class; a lambda or a raw MessageHandler does not carry the type.");
		}
		Consumer settings = AnnotatedElementUtils.findMergedAnnotation(handlerClass, Consumer.class);
		String queue = (settings != null && !settings.queue().isEmpty()) ? settings.queue()
				: kebabCase(handlerClass.getSimpleName());
		String problem = ConsumerRegistration.queueNameProblem(queue);
		if (problem != null) {
			throw new IllegalStateException("MessageHandler bean '" + name + "' (" + handlerClass.getName()
					+ ") would consume queue '" + queue + "', which " + problem + ". Set @Consumer(queue = \"...\") "
					+ "on its class to a valid name.");
		}
		Class<?> failedClass = null;
		if (messageClass == Fault.class) {
			failedClass = ResolvableType.forClass(handlerClass).as(MessageHandler.class).getGeneric(0).getGeneric(0)
				.resolve();
			if (failedClass == null || failedClass == Object.class) {
				throw new IllegalStateException("MessageHandler bean '" + name + "' (" + handlerClass.getName()
						+ ") handles Fault without saying of which message type; implement "
						+ "MessageHandler<Fault<YourMessage>>.");
			}
		}
		ResolvableType payloadType = (failedClass != null) ? messageType.getGeneric(0) : messageType;
		if (fixesTypeArguments(payloadType)) {
			throw new IllegalStateException("MessageHandler bean '" + name + "' (" + handlerClass.getName()
					+ ") handles " + payloadType + ", a generic type with its type arguments fixed. A message "
					+ "carries the type name of its class alone, so " + payloadType.toClass().getSimpleName()
					+ " of any type arguments is one message type on one exchange, and its body is read into "
					+ payloadType.toClass().getName() + " with the type arguments unknown (maps and lists "
					+ "where the handler expects its own types). Handle a class that fixes them, e.g. a record "
					+ "with the fields you need or 'class ItemEnvelope extends Envelope<Item>' with its own "
					+ "@MessageType.");
		}
		return new Found(name, handler, handlerClass, messageClass, failedClass, settings, queue);
	}

	/** Whether a type has a type argument other than Object or an unbounded wildcard, at any depth. */
	private static boolean fixesTypeArguments(ResolvableType type) {
		for (ResolvableType argument : type.getGenerics()) {
			Class<?> resolved = argument.resolve();
			if ((resolved != null && resolved != Object.class)
					|| fixesTypeArguments(argument)) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked") // T of the handler's class was resolved as messageClass
	private static <T> ReceiveEndpoint handle(ReceiveEndpoint endpoint, Class<T> messageClass,
			MessageHandler<?> handler) {
		return endpoint.handle(messageClass, (MessageHandler<T>) handler);
	}

	@SuppressWarnings("unchecked") // T of the handler's class was resolved as Fault<failedClass>
	private static <M> ReceiveEndpoint handleFault(ReceiveEndpoint endpoint, Class<M> failedClass,
			MessageHandler<?> handler) {
		return endpoint.handleFault(failedClass, (MessageHandler<Fault<M>>) handler);
	}

	/** A MessageHandler bean and what its class says. */
	record Found(String bean, MessageHandler<?> handler, Class<?> handlerClass, Class<?> messageClass,
			@Nullable Class<?> failedClass, @Nullable Consumer settings, String queue) {

		String describeType() {
			return (this.failedClass != null) ? "Fault<" + this.failedClass.getName() + ">" : this.messageClass.getName();
		}

		String describe() {
			return "bean '" + this.bean + "' (" + this.handlerClass.getName() + ")";
		}

	}

	/**
	 * Returns a class name in kebab case: {@code ChargeCardHandler} is {@code charge-card-handler},
	 * {@code HTTPRequestHandler} is {@code http-request-handler}.
	 */
	static String kebabCase(String name) {
		StringBuilder out = new StringBuilder(name.length() + 8);
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c == '_' || c == '$') {
				separate(out);
			}
			else if (Character.isUpperCase(c)) {
				boolean wordStart = i > 0 && (!Character.isUpperCase(name.charAt(i - 1))
						|| (i + 1 < name.length() && Character.isLowerCase(name.charAt(i + 1))));
				if (wordStart) {
					separate(out);
				}
				out.append(Character.toLowerCase(c));
			}
			else {
				out.append(c);
			}
		}
		return out.toString().toLowerCase(Locale.ROOT);
	}

	private static void separate(StringBuilder out) {
		if (out.length() > 0 && out.charAt(out.length() - 1) != '-') {
			out.append('-');
		}
	}

}
