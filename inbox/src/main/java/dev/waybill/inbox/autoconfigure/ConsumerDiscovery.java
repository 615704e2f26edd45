package dev.waybill.inbox.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.internal.ConsumerRegistry;
import dev.waybill.inbox.internal.ConsumerRegistry;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageHandler;

/**
 * Registers every {@link MessageHandler} bean: its message type from the generic of its class (the
 * target class behind an AOP proxy), its queue and concurrency from {@link Consumer @Consumer} or
 * the properties. Every problem fails start-up naming the bean.
 */
final class ConsumerDiscovery {

	private ConsumerDiscovery() {
	}

	static ConsumerRegistry discover(ListableBeanFactory beans, WaybillInboxProperties properties) {
		List<ConsumerRegistration<?>> registrations = new ArrayList<>();
		Map<String, String> beanByQueue = new LinkedHashMap<>();
		for (String name : beans.getBeanNamesForType(MessageHandler.class)) {
			MessageHandler<?> handler = beans.getBean(name, MessageHandler.class);
			ConsumerRegistration<?> registration = register(name, handler, properties);
			String other = beanByQueue.putIfAbsent(registration.queue(), name);
			if (other != null) {
				throw new IllegalStateException("MessageHandler beans '" + other + "' and '" + name
						+ "' both consume queue '" + registration.queue() + "'; a queue has one handler. Set "
						+ "@Consumer(queue = \"...\") on one of them to a queue of its own.");
			}
			registrations.add(registration);
		}
		return ConsumerRegistry.of(registrations);
	}

	private static ConsumerRegistration<?> register(String name, MessageHandler<?> handler,
			WaybillInboxProperties properties) {
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
		int concurrency = orDefault(name, handlerClass, "concurrency", (settings != null) ? settings.concurrency() : 0,
				properties.getConcurrency());
		int prefetch = orDefault(name, handlerClass, "prefetch", (settings != null) ? settings.prefetch() : 0,
				properties.getPrefetch());
		try {
			if (messageClass == Fault.class) {
				Class<?> failedClass = messageType.getGeneric(0).resolve();
				if (failedClass == null || failedClass == Object.class) {
					throw new IllegalStateException("MessageHandler bean '" + name + "' (" + handlerClass.getName()
							+ ") handles Fault without saying of which message type; implement "
							+ "MessageHandler<Fault<YourMessage>>.");
				}
				return faultRegistration(queue, failedClass, handler).withConcurrency(concurrency)
					.withPrefetch(prefetch)
					.withQueueArguments(properties.queueArgumentValues());
			}
			return registration(queue, messageClass, handler).withConcurrency(concurrency)
				.withPrefetch(prefetch)
				.withQueueArguments(properties.queueArgumentValues())
				.withPartitionByOrderingKey(properties.isPartitionByOrderingKey());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("MessageHandler bean '" + name + "' (" + handlerClass.getName()
					+ ") cannot be registered: " + ex.getMessage(), ex);
		}
	}

	@SuppressWarnings("unchecked") // T of the handler's class was resolved as messageClass
	private static <T> ConsumerRegistration<T> registration(String queue, Class<T> messageClass,
			MessageHandler<?> handler) {
		return ConsumerRegistration.of(queue, messageClass, (MessageHandler<T>) handler);
	}

	@SuppressWarnings("unchecked") // T of the handler's class was resolved as Fault<failedClass>
	private static <M> ConsumerRegistration<Fault<M>> faultRegistration(String queue, Class<M> failedClass,
			MessageHandler<?> handler) {
		return ConsumerRegistration.ofFault(queue, failedClass, (MessageHandler<Fault<M>>) handler);
	}

	private static int orDefault(String name, Class<?> handlerClass, String attribute, int value, int fallback) {
		if (value < 0) {
			throw new IllegalStateException("@Consumer(" + attribute + " = " + value + ") on " + handlerClass.getName()
					+ " (bean '" + name + "') must be at least 1, or 0 for " + WaybillInboxProperties.PREFIX + "."
					+ attribute + ".");
		}
		return (value != 0) ? value : fallback;
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
