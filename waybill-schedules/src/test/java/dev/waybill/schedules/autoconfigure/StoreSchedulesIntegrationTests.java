package dev.waybill.schedules.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.StoreSchedules;
import dev.waybill.schedules.SchedulerProcess.Beat;

/**
 * Schedules in several stores, on a real PostgreSQL: the default store and tenant schemas on the
 * application's DataSource, one registered at run time. A schedule of every store fires in each,
 * once per tick however many instances run, into that store's outbox only; each store's row is
 * paused there alone; a store that fails holds back no other.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreSchedulesIntegrationTests {

	private static final String EVERY = "every-store";

	private TestSchema schema;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.create("schedules_stores");
	}

	@AfterEach
	void tearDown() {
		for (String tenant : List.of("acme", "globex")) {
			this.schema.execute("DROP SCHEMA IF EXISTS " + tenantSchema(tenant) + " CASCADE");
		}
		this.schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillSchedulesAutoConfiguration.class))
			.withBean("everyStore", Schedule.class, () -> Schedule.cron(EVERY, "* * * * * *",
					(tick, publisher) -> publisher.send("amq.fanout", new Beat(tick.scheduledAt().toString(), tick.store())))
				.inEveryStore())
			.withBean("acmeOnly", Schedule.class, () -> Schedule.cron("acme-only", "* * * * * *",
					(tick, publisher) -> publisher.send("amq.fanout", new Beat(tick.scheduledAt().toString(), "acme-only")))
				.inStore("acme"))
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=4", "waybill.scheduler.poll-interval=100ms",
					"waybill.outbox.relay.enabled=false", "waybill.stores.acme.schema=" + tenantSchema("acme"));
	}

	@Test
	void aScheduleOfEveryStoreFiresInEachIntoItsOwnOutboxAndAStoreRegisteredLaterToo() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			Awaitility.await().atMost(Duration.ofSeconds(10))
				.until(() -> beats(context, "default").size() >= 2 && beats(context, "acme").size() >= 3);
			assertThat(beats(context, "default")).as("the default store's ticks, named so")
				.allSatisfy((beat) -> assertThat(beat.by()).isEqualTo("default"));
			assertThat(beats(context, "acme")).as("acme's ticks: its every-store one and its own")
				.extracting(Beat::by).containsOnly("acme", "acme-only").contains("acme", "acme-only");
			StoreSchedules stores = context.getBean(StoreSchedules.class);
			assertThat(stores.of("default").find("acme-only")).as("no row where it does not fire").isEmpty();
			assertThat(stores.of("acme").find("acme-only")).isPresent();

			context.getBean(WaybillStores.class)
				.register(new WaybillStore("globex", context.getBean(javax.sql.DataSource.class), tenantSchema("globex")));
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> beats(context, "globex").size() >= 2);
			assertThat(beats(context, "globex")).extracting(Beat::by).containsOnly("globex");
			assertThat(stores.of("globex").find(EVERY)).hasValueSatisfying((status) -> assertThat(status.firedTicks()).isPositive());
			assertThatExceptionOfType(UnknownStoreException.class).isThrownBy(() -> stores.of("nope"))
				.withMessageContaining("No store 'nope' is registered");
		});
	}

	@Test
	void aScheduleIsPausedInOneStoreAlone() {
		runner().run((context) -> {
			StoreSchedules stores = context.getBean(StoreSchedules.class);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.of("acme").find(EVERY).isPresent());
			assertThat(stores.of("acme").pause(EVERY)).isTrue();
			int paused = everyStoreBeats(context, "acme");
			int before = beats(context, "default").size();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> beats(context, "default").size() >= before + 3);
			assertThat(everyStoreBeats(context, "acme")).as("no tick while paused").isEqualTo(paused);
			assertThat(stores.of("default").find(EVERY).orElseThrow().paused()).isFalse();
			assertThat(stores.of("acme").resume(EVERY)).isTrue();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> everyStoreBeats(context, "acme") > paused);
		});
	}

	@Test
	void twoInstancesFireEachTickOnceInEveryStore() {
		runner().run((first) -> runner().run((second) -> {
			Awaitility.await().atMost(Duration.ofSeconds(20))
				.until(() -> everyStoreBeats(first, "default") >= 4 && everyStoreBeats(first, "acme") >= 4);
			for (String store : List.of("default", "acme")) {
				List<String> ticks = beats(first, store).stream().filter((beat) -> beat.by().equals(store))
					.map(Beat::at).toList();
				assertThat(ticks).as("each tick once in " + store).doesNotHaveDuplicates();
			}
		}));
	}

	@Test
	void aStoreWhoseTablesFailHoldsBackNoOtherAndCatchesUpWhenItWorksAgain(CapturedOutput output) {
		runner().run((context) -> {
			StoreSchedules stores = context.getBean(StoreSchedules.class);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stores.of("acme").find(EVERY).isPresent());
			String table = tenantSchema("acme") + ".outbox_state_schedule";
			this.schema.execute("ALTER TABLE " + table + " RENAME TO outbox_state_schedule_away");
			try {
				int acme = beats(context, "acme").size();
				int before = beats(context, "default").size();
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> beats(context, "default").size() >= before + 3);
				assertThat(beats(context, "acme")).as("nothing fires in the failing store").hasSize(acme);
			}
			finally {
				this.schema.execute("ALTER TABLE " + table + "_away RENAME TO outbox_state_schedule");
			}
			int acme = everyStoreBeats(context, "acme");
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> everyStoreBeats(context, "acme") > acme);
			assertThat(output.getOut()).as("one outage, told once under the store's name, not at every pass")
				.containsOnlyOnce("Schedules of store 'acme' could not fire (their ticks stay due)");
		});
	}

	@Test
	void aTenantDatabaseThatGoesAwayHoldsBackNoOtherStoresTicksAndFiresAgainWhenBack() throws Exception {
		String database = "waybill_schedules_" + UUID.randomUUID().toString().substring(0, 8);
		admin("CREATE DATABASE " + database);
		String url = TestPostgres.get().url().replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1");
		try (HikariDataSource far = TestPostgres.at(url, TestPostgres.get().user(), TestPostgres.get().password(),
				"tenant database").pool("schedules-far", 2)) {
			far.setConnectionTimeout(1000);
			runner().run((context) -> {
				context.getBean(WaybillStores.class).register(new WaybillStore("far", far, "waybill"));
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> everyStoreBeats(context, "far") >= 1);
				int farBefore = everyStoreBeats(context, "far");
				admin("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
				admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
				try {
					int before = everyStoreBeats(context, "default");
					Awaitility.await().atMost(Duration.ofSeconds(15))
						.until(() -> everyStoreBeats(context, "default") >= before + 3);
				}
				finally {
					admin("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
				}
				// its pool may refuse a connection or two more before it sees the database back
				Awaitility.await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
					.until(() -> everyStoreBeats(context, "far") >= farBefore + 2); // at most one fired before it went away
				List<String> ticks = beats(context, "far").stream().map(Beat::at).toList();
				assertThat(ticks).as("each of its ticks once").doesNotHaveDuplicates();
			});
		}
		finally {
			admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
		}
	}

	private static void admin(String sql) throws SQLException {
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private String tenantSchema(String tenant) {
		return this.schema.name() + "_" + tenant;
	}

	private int everyStoreBeats(ApplicationContext context, String store) {
		return (int) beats(context, store).stream().filter((beat) -> beat.by().equals(store)).count();
	}

	/** The beats in a store's outbox. */
	private List<Beat> beats(ApplicationContext context, String store) {
		WaybillStore found = context.getBean(WaybillStores.class).find(store).orElseThrow();
		return new JdbcTemplate(found.dataSource()).query("SELECT convert_from(body, 'UTF8') FROM " + found.schema()
				+ ".outbox_message ORDER BY sequence_number", (rs, n) -> {
					String json = rs.getString(1);
					return new Beat(field(json, "at"), field(json, "by"));
				});
	}

	private static String field(String json, String name) {
		int start = json.indexOf("\"" + name + "\":\"") + name.length() + 4;
		return json.substring(start, json.indexOf('"', start));
	}

}
