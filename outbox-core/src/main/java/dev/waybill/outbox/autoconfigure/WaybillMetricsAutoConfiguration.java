package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.internal.metrics.AdminActionMeter;
import dev.waybill.outbox.internal.metrics.RelayMetrics;
import dev.waybill.outbox.internal.metrics.StoreBacklogMetrics;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.StoreDueProbes;

/**
 * Provides the relay's Micrometer meters when Micrometer is on the class path; Spring Boot binds
 * them to every meter registry.
 *
 * @since 0.1
 */
@AutoConfiguration(after = WaybillAutoConfiguration.class, before = WaybillRelayAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBean(OutboxBacklog.class)
public final class WaybillMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RelayMetrics waybillRelayMetrics(OutboxBacklog backlog) {
		return new RelayMetrics(backlog);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(StoreDueProbes.class)
	StoreBacklogMetrics waybillStoreBacklogMetrics(DefaultWaybillStores stores, StoreDueProbes probes) {
		return new StoreBacklogMetrics(stores, probes);
	}

	@Bean
	@ConditionalOnMissingBean
	AdminActionMeter waybillAdminActionMeter() {
		return new AdminActionMeter();
	}

}
