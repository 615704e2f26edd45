package dev.waybill.outbox.rabbit.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.autoconfigure.WaybillInboxProperties;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.AdminAudit;
import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.ErrorQueues;
import dev.waybill.outbox.rabbit.internal.RabbitErrorQueues;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.internal.ReceiveEndpointSettings;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * Consumes every discovered {@link dev.waybill.inbox.MessageHandler} from RabbitMQ through the
 * inbox. The inbox is an optional dependency of this module: without the {@code inbox} module on
 * the classpath, or without a handler bean, no receive endpoint is created.
 *
 * @since 0.1
 */
@AutoConfiguration(after = { WaybillRabbitAutoConfiguration.class, WaybillInboxAutoConfiguration.class })
@ConditionalOnClass(DeliveryProcessor.class)
@ConditionalOnBean({ RabbitTransport.class, DeliveryProcessor.class, ConsumerRegistry.class })
public final class WaybillRabbitInboxAutoConfiguration {

	/**
	 * The name of the receive endpoint's bean, a {@link org.springframework.context.Lifecycle} that
	 * consumes every registered queue: stop this Lifecycle bean to pause consuming on an instance
	 * (it stops as at shutdown: the handlers running finish and are acknowledged, prefetched
	 * deliveries go back to their queues); start it again to resume.
	 * @since 0.1
	 */
	public static final String RECEIVE_ENDPOINT_BEAN_NAME = "waybillReceiveEndpoint";

	@Bean(name = RECEIVE_ENDPOINT_BEAN_NAME)
	@ConditionalOnMissingBean
	RabbitReceiveEndpoint waybillReceiveEndpoint(RabbitTransport transport, DeliveryProcessor processor,
			ConsumerRegistry consumers, WaybillInboxProperties properties, WaybillRabbitProperties rabbit,
			ObjectProvider<WaybillThreads> threads) {
		// the topology check interval is checked with the transport's settings
		ReceiveEndpointSettings settings = new ReceiveEndpointSettings(transport.declaredTopology(),
				rabbit.getTopologyCheckInterval(), threads.getIfAvailable(WaybillThreads::platform),
				properties.getShutdownTimeout(), properties.getBatch().getMaxSize(), properties.getBatch().getLinger(),
				properties.getPredecessorWait());
		return new RabbitReceiveEndpoint(transport, processor, consumers.receiveEndpoints(), settings);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean({ InboxAdmin.class, OutboxWriter.class, PlatformTransactionManager.class, RelayWakeUp.class,
			AdminAudit.class })
	ErrorQueues waybillErrorQueues(RabbitTransport transport, ConsumerRegistry consumers,
			PlatformTransactionManager transactionManager, OutboxWriter writer, InboxAdmin inbox, RelayWakeUp wakeUp,
			AdminAudit audit) {
		return new RabbitErrorQueues(transport, consumers.registrations(), transactionManager, writer, inbox, wakeUp,
				audit);
	}

}
