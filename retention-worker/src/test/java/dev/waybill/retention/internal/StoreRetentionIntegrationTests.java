package dev.waybill.retention.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration;
import dev.waybill.retention.test.RetentionRows;

/**
 * Retention of several stores: the default one and a tenant schema configured under
 * {@code waybill.stores}, and one registered at run time, each purged in its own tables on the
 * hosts retention runs on, and on no other.
 */
class StoreRetentionIntegrationTests {

	private TestSchema schema;

	private TestSchema tenant;

	private TestSchema later;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("retention_stores");
		this.tenant = TestSchema.withWaybillTables("retention_tenant");
		this.later = TestSchema.withWaybillTables("retention_later");
	}

	@AfterEach
	void tearDown() {
		this.later.close();
		this.tenant.close();
		this.schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class))
			.withPropertyValues("waybill.stores.tenant.schema=" + this.tenant.name(), "waybill.retention.interval=100ms",
					"waybill.retention.completed-after=1d", "waybill.retention.machine-name=ops-1");
	}

	@Test
	void everyStoreIsPurgedInItsOwnTables() {
		RetentionRows defaults = new RetentionRows(this.schema);
		RetentionRows tenant = new RetentionRows(this.tenant);
		RetentionRows later = new RetentionRows(this.later);
		UUID oldDefault = defaults.published("2 days");
		UUID recentDefault = defaults.published("1 hour");
		UUID oldTenant = tenant.published("2 days");
		UUID recentTenant = tenant.published("1 hour");
		UUID oldLater = later.published("2 days");
		runner().run((context) -> {
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> !defaults.scopeExists(oldDefault) && !tenant.scopeExists(oldTenant));
			assertThat(defaults.scopeExists(recentDefault)).isTrue();
			assertThat(tenant.scopeExists(recentTenant)).isTrue();
			assertThat(later.scopeExists(oldLater)).as("not a store yet").isTrue();
			WaybillStores stores = context.getBean(WaybillStores.class);
			stores.register(new WaybillStore("later", this.later.dataSource(), this.later.name()));
			Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !later.scopeExists(oldLater));
		});
	}

	@Test
	void noStoreIsPurgedOnAHostRetentionDoesNotRunOn() {
		runner().withPropertyValues("waybill.retention.machine-names=ops-2").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(StoreRetention.class).doesNotHaveBean(RetentionWorker.class);
		});
	}

}
