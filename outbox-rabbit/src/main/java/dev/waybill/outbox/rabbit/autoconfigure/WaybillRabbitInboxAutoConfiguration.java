package dev.waybill.outbox.rabbit.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.waybill.inbox.ConsumerRegistry;
import dev.waybill.inbox.InboxProcessor;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.RabbitTransport;

/**
 * Consumes every discovered {@link dev.waybill.inbox.MessageHandler} from RabbitMQ through the
 * inbox. The inbox is an optional dependency of this module: without the {@code inbox} module on
 * the classpath, or without a handler bean, no receive endpoint is created.
 *
 * @since 0.1
 */
@AutoConfiguration(after = { WaybillRabbitAutoConfiguration.class, WaybillInboxAutoConfiguration.class })
@ConditionalOnClass(InboxProcessor.class)
@ConditionalOnBean({ RabbitTransport.class, InboxProcessor.class, ConsumerRegistry.class })
public final class WaybillRabbitInboxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RabbitReceiveEndpoint waybillReceiveEndpoint(RabbitTransport transport, InboxProcessor processor,
			ConsumerRegistry consumers, WaybillInboxProperties properties, ObjectProvider<WaybillThreads> threads) {
		RabbitReceiveEndpoint endpoint = new RabbitReceiveEndpoint(transport, processor, consumers.registrations());
		endpoint.setShutdownTimeout(properties.getShutdownTimeout());
		endpoint.setTopology(transport.declaredTopology());
		endpoint.setThreads(threads.getIfAvailable(WaybillThreads::platform));
		return endpoint;
	}

}
