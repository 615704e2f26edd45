package dev.waybill.outbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestSchema;

/**
 * The oldest-due gauge of each store besides the default one, on PostgreSQL: what the relay's
 * poll of its database found, tagged with its name, there while it is registered.
 */
class StoreBacklogMetricsIntegrationTests {

	private TestSchema schema;

	private TestSchema tenant;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("backlog_default");
		this.tenant = TestSchema.withWaybillTables("backlog_tenant");
	}

	@AfterEach
	void tearDown() {
		this.tenant.close();
		this.schema.close();
	}

	@Test
	void aStoresOldestDueScopeIsMeasuredUnderItsNameWhileItIsRegistered() throws Exception {
		JdbcOutboxStore store = new JdbcOutboxStore(this.schema.dataSource(), this.schema.tables());
		DefaultWaybillStores stores = new DefaultWaybillStores(new RegisteredStore(
				new WaybillStore(WaybillStore.DEFAULT_NAME, this.schema.dataSource(), this.schema.name()), this.schema.tables(),
				store, store), DefaultWaybillStores.Migration.NONE);
		StoreDueProbes probes = new StoreDueProbes(stores);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new StoreBacklogMetrics(stores, probes).bindTo(registry);
		stores.register(new WaybillStore("tenant", this.tenant.dataSource(), this.tenant.name()));
		new JdbcOutboxStore(this.tenant.dataSource(), this.tenant.tables()).write(TestMessages.scope("orders", "waiting"));
		this.tenant.execute("UPDATE " + this.tenant.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '90 seconds'");

		assertThat(probes.due(Set.of("tenant"))).containsExactly("tenant");
		assertThat(oldestDueSeconds(registry)).isBetween(90.0, 120.0);

		this.tenant.execute("UPDATE " + this.tenant.tables().qualifiedOutboxState() + " SET status = 'published'");
		assertThat(probes.due(Set.of("tenant"))).isEmpty();
		assertThat(oldestDueSeconds(registry)).isZero();

		stores.deregister("tenant");
		assertThat(registry.find(RelayMetrics.OLDEST_DUE_AGE).tag(RelayMetrics.STORE_TAG, "tenant").timeGauge()).isNull();
	}

	private static double oldestDueSeconds(SimpleMeterRegistry registry) {
		return registry.get(RelayMetrics.OLDEST_DUE_AGE).tag(RelayMetrics.STORE_TAG, "tenant").timeGauge()
			.value(TimeUnit.SECONDS);
	}

}
