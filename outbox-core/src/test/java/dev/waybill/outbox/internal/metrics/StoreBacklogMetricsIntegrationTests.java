package dev.waybill.outbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.internal.health.BacklogHealthIndicator;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.store.DefaultWaybillStores;
import dev.waybill.outbox.internal.store.RegisteredStore;
import dev.waybill.outbox.internal.store.StoreDueProbes;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.test.TestMessages;
import dev.waybill.outbox.test.TestSchema;

/**
 * The backlog gauges and health of each store besides the default one, on PostgreSQL: what the
 * relay's poll of its database found, tagged with its name, there while it is registered.
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
		assertThat(gauge(registry, RelayMetrics.PENDING)).isEqualTo(1);
		assertThat(gauge(registry, RelayMetrics.DUE_SCOPES)).isEqualTo(1);
		assertThat(registry.get(RelayMetrics.LAG).tag(RelayMetrics.STORE_TAG, "tenant").timeGauge().value(TimeUnit.SECONDS))
			.isLessThan(60);

		this.tenant.execute("UPDATE " + this.tenant.tables().qualifiedOutboxState() + " SET status = 'published'");
		assertThat(probes.due(Set.of("tenant"))).isEmpty();
		assertThat(oldestDueSeconds(registry)).isZero();
		assertThat(gauge(registry, RelayMetrics.PENDING)).as("read once more after it drained").isZero();

		this.tenant.execute("UPDATE " + this.tenant.tables().qualifiedOutboxState() + " SET status = 'dead'");
		for (int i = 0; i < StoreDueProbes.BACKLOG_EVERY_PROBES; i++) {
			assertThat(probes.due(Set.of("tenant"))).isEmpty();
		}
		assertThat(gauge(registry, RelayMetrics.DEAD_SCOPES)).as("an idle store's backlog, read every tenth probe")
			.isEqualTo(1);

		stores.deregister("tenant");
		assertThat(registry.find(RelayMetrics.OLDEST_DUE_AGE).tag(RelayMetrics.STORE_TAG, "tenant").timeGauge()).isNull();
	}

	@Test
	void theBacklogHealthNamesAStoreWhoseOldestDueScopeWaitedTooLongAndStaysUp() {
		JdbcOutboxStore store = new JdbcOutboxStore(this.schema.dataSource(), this.schema.tables());
		DefaultWaybillStores stores = new DefaultWaybillStores(new RegisteredStore(
				new WaybillStore(WaybillStore.DEFAULT_NAME, this.schema.dataSource(), this.schema.name()), this.schema.tables(),
				store, store), DefaultWaybillStores.Migration.NONE);
		StoreDueProbes probes = new StoreDueProbes(stores);
		stores.register(new WaybillStore("tenant", this.tenant.dataSource(), this.tenant.name()));
		BacklogHealthIndicator health = new BacklogHealthIndicator(store, Duration.ofMinutes(1), Duration.ofSeconds(5),
				Clock.systemUTC(), WaybillThreads.platform());
		health.setOtherStores(() -> stores.all().stream().map(WaybillStore::name).toList(), probes);
		assertThat(details(health).get("stores")).asString().contains("not yet");

		new JdbcOutboxStore(this.tenant.dataSource(), this.tenant.tables()).write(TestMessages.scope("orders", "waiting"));
		this.tenant.execute("UPDATE " + this.tenant.tables().qualifiedOutboxState()
				+ " SET next_attempt_at = now() - interval '90 seconds'");
		probes.due(Set.of("tenant"));
		Health checked = health.health();
		assertThat(checked.getStatus()).as("the default store's").isEqualTo(Status.UP);
		assertThat(checked.getDetails().get("storesStale")).isEqualTo(List.of("tenant"));
		@SuppressWarnings("unchecked")
		Map<String, Object> tenant = (Map<String, Object>) ((Map<String, Object>) checked.getDetails().get("stores")).get("tenant");
		assertThat(tenant).containsEntry("pendingScopes", 1L).containsEntry("dueScopes", 1L).containsKey("readAt");
	}

	private static Map<String, Object> details(BacklogHealthIndicator health) {
		return health.health().getDetails();
	}

	private static double gauge(SimpleMeterRegistry registry, String name) {
		return registry.get(name).tag(RelayMetrics.STORE_TAG, "tenant").gauge().value();
	}

	private static double oldestDueSeconds(SimpleMeterRegistry registry) {
		return registry.get(RelayMetrics.OLDEST_DUE_AGE).tag(RelayMetrics.STORE_TAG, "tenant").timeGauge()
			.value(TimeUnit.SECONDS);
	}

}
