package dev.waybill.console.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.util.UriUtils;

import dev.waybill.console.ConsumerSide;
import dev.waybill.console.RabbitConsumerSide;
import dev.waybill.console.WaybillEndpoint;
import dev.waybill.console.WaybillWritableEndpoint;
import dev.waybill.inbox.InboxLookup;
import dev.waybill.inbox.StoreInboxLookups;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.store.StoreAdmins;
import dev.waybill.outbox.rabbit.ErrorQueues;

/**
 * The operations console: the Actuator endpoint {@code waybill} (only where Actuator is on the
 * class path and the endpoint is available, i.e. exposed, e.g.
 * {@code management.endpoints.web.exposure.include=health,waybill}) and, in a servlet web
 * application, the redirect from {@code /waybill} to the page. Writes only with
 * {@code waybill.admin.write-enabled=true}.
 *
 * @since 0.1
 */
@AutoConfiguration(afterName = { "dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration",
		"dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration",
		"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration" })
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(OutboxAdmin.class)
@EnableConfigurationProperties(WaybillAdminProperties.class)
public final class WaybillConsoleAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(WaybillEndpoint.class)
	WaybillEndpoint waybillEndpoint(OutboxAdmin outbox, ObjectProvider<StoreAdmins> stores,
			ObjectProvider<ConsumerSide> consumers, WaybillAdminProperties properties) {
		ConsumerSide consumerSide = consumers.getIfAvailable();
		StoreAdmins admins = stores.getIfUnique();
		if (admins == null) {
			return properties.isWriteEnabled() ? new WaybillWritableEndpoint(outbox, consumerSide)
					: new WaybillEndpoint(outbox, consumerSide);
		}
		return properties.isWriteEnabled() ? new WaybillWritableEndpoint(admins, consumerSide)
				: new WaybillEndpoint(admins, consumerSide);
	}

	/**
	 * The consumer side, where the application consumes from RabbitMQ through the inbox.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "dev.waybill.inbox.InboxLookup", "dev.waybill.outbox.rabbit.ErrorQueues" })
	static class RabbitConsumerSideConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(InboxLookup.class)
		ConsumerSide waybillConsumerSide(InboxLookup inbox, ObjectProvider<StoreInboxLookups> stores,
				ObjectProvider<ErrorQueues> errorQueues) {
			StoreInboxLookups inboxes = stores.getIfUnique();
			return (inboxes != null) ? new RabbitConsumerSide(inboxes, errorQueues.getIfAvailable())
					: new RabbitConsumerSide(inbox, errorQueues.getIfAvailable());
		}

	}

	/**
	 * {@code GET /waybill} redirects to the page, telling it where the endpoint is.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.config.annotation.WebMvcConfigurer")
	@ConditionalOnBooleanProperty(name = "waybill.admin.page-enabled", matchIfMissing = true)
	static class PageConfiguration {

		@Bean
		WebMvcConfigurer waybillConsolePage(ObjectProvider<WebEndpointProperties> endpoints) {
			WebEndpointProperties properties = endpoints.getIfAvailable();
			String basePath = (properties != null) ? properties.getBasePath() : "/actuator";
			String endpoint = basePath + "/waybill";
			return new WebMvcConfigurer() {
				@Override
				public void addViewControllers(ViewControllerRegistry registry) {
					registry.addRedirectViewController("/waybill",
							"/waybill/index.html?endpoint=" + UriUtils.encodeQueryParam(endpoint, "UTF-8"));
				}
			};
		}

	}

}
