package dev.waybill.outbox.rabbit.autoconfigure.health;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.waybill.outbox.autoconfigure.health.WaybillHealthContributorAutoConfiguration;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.internal.health.ConsumersHealthIndicator;

/**
 * Adds the {@code consumers} component to the {@code waybill} health contributor when the
 * application consumes from RabbitMQ.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillRabbitInboxAutoConfiguration.class,
		before = WaybillHealthContributorAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RabbitReceiveEndpoint.class)
public final class WaybillRabbitHealthContributorAutoConfiguration {

	// Nested: its condition's class is only read once the outer condition found Boot's health support.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("waybill")
	static class WaybillRabbitHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "waybillConsumersHealth")
		ConsumersHealthIndicator waybillConsumersHealth(RabbitReceiveEndpoint endpoint) {
			return new ConsumersHealthIndicator(endpoint);
		}

	}

}
