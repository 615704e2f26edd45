package dev.waybill.inbox.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.waybill.inbox.internal.metrics.InboxMetrics;
import dev.waybill.inbox.spi.ConsumerRegistry;

/**
 * Provides the inbox's Micrometer meters when Micrometer is on the class path; Spring Boot binds
 * them to every meter registry and the inbox auto-configuration adds them as an
 * {@link dev.waybill.inbox.InboxListener}. The discovered consumers' counters exist, at zero, from
 * the binding on.
 *
 * @since 0.1
 */
@AutoConfiguration(before = WaybillInboxAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
public final class WaybillInboxMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	InboxMetrics waybillInboxMetrics(ObjectProvider<ConsumerRegistry> consumers) {
		return new InboxMetrics(() -> {
			ConsumerRegistry registry = consumers.getIfAvailable();
			return (registry != null) ? registry.registrations() : List.of();
		});
	}

}
