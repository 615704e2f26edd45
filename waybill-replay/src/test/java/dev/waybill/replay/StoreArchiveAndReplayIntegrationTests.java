package dev.waybill.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.kernel.AuxiliaryTables;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.replay.autoconfigure.WaybillReplayAutoConfiguration;
import dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration;
import dev.waybill.retention.test.RetentionRows;

/**
 * Archive and replay in a store other than the default, on a real PostgreSQL: retention archives
 * each store's published messages into that store's archive, and a replay job started in a store
 * runs there, from that store's archive into that store's outbox, and is listed there only.
 */
class StoreArchiveAndReplayIntegrationTests {

	private TestSchema schema;

	private TestSchema tenant;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("replay_stores");
		this.tenant = TestSchema.withWaybillTables("replay_tenant");
	}

	@AfterEach
	void tearDown() {
		this.tenant.close();
		this.schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class,
					WaybillReplayAutoConfiguration.class))
			.withPropertyValues("waybill.stores.tenant.schema=" + this.tenant.name(), "waybill.retention.interval=100ms",
					"waybill.retention.completed-after=1d", "waybill.retention.archive-after=90d",
					"waybill.retention.machine-name=ops-1", "waybill.replay.poll-interval=100ms",
					"waybill.outbox.relay.enabled=false");
	}

	@Test
	void aTenantsMessagesAreArchivedInItsStoreAndReplayedIntoItsOutboxByAJobOfItsOwn() {
		RetentionRows defaults = new RetentionRows(this.schema);
		RetentionRows tenant = new RetentionRows(this.tenant);
		List<UUID> tenantScopes = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			tenantScopes.add(tenant.published("2 days"));
		}
		defaults.published("2 days");
		defaults.published("2 days");
		runner().run((context) -> {
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> count(this.tenant, archive(this.tenant)) == 5 && count(this.schema, archive(this.schema)) == 2);
			assertThat(tenantScopes).noneMatch(tenant::scopeExists);
			assertThat(count(this.tenant, this.tenant.tables().qualifiedOutboxMessage())).isZero();

			StoreReplays replays = context.getBean(StoreReplays.class);
			ReplayJob job = replays.of("tenant")
				.start(ReplayRequest.all().destination("orders").to(ReplayTarget.queue("tenant-orders-again")));
			Awaitility.await().atMost(Duration.ofSeconds(30))
				.until(() -> replays.of("tenant").find(job.id()).orElseThrow().status() == ReplayStatus.COMPLETED);
			assertThat(replays.of("tenant").find(job.id()).orElseThrow().replayed()).isEqualTo(5);
			assertThat(new JdbcTemplate(this.tenant.dataSource()).queryForList("SELECT routing_key FROM "
					+ this.tenant.tables().qualifiedOutboxMessage(), String.class))
				.as("replayed into the tenant's outbox").hasSize(5).containsOnly("tenant-orders-again");
			assertThat(count(this.schema, this.schema.tables().qualifiedOutboxMessage()))
				.as("nothing written to the default store").isZero();
			assertThat(context.getBean(Replays.class).list()).as("the job is the tenant's").isEmpty();
			assertThat(replays.of("default").find(job.id())).isEmpty();
			assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(() -> replays.of("nope"))
				.withMessageContaining("No store 'nope' is registered");
		});
	}

	private static String archive(TestSchema schema) {
		return new AuxiliaryTables(schema.tables()).qualifiedArchive();
	}

	private static int count(TestSchema schema, String table) {
		Integer count = new JdbcTemplate(schema.dataSource()).queryForObject("SELECT count(*) FROM " + table, Integer.class);
		return (count != null) ? count : 0;
	}

}
