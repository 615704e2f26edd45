package dev.waybill.retention.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.UUID;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.outbox.test.StartupFailures;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.retention.test.RetentionRows;
import dev.waybill.retention.internal.RetentionSettings;
import dev.waybill.retention.internal.RetentionWorker;
import dev.waybill.retention.internal.metrics.RetentionMetrics;

/**
 * Registration on the selected hosts, validation of {@code waybill.retention.*}, the schedule and
 * the meters.
 */
class WaybillRetentionAutoConfigurationTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_autoconfig");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class));
	}

	@Test
	void workerRunsOnEveryHostWhenMachineNamesIsEmpty() {
		runner().withPropertyValues("waybill.retention.machine-name=orders-7").run((context) -> {
			assertThat(context).hasSingleBean(RetentionWorker.class).hasSingleBean(RetentionMetrics.class);
			RetentionHostSelection selection = context.getBean(RetentionHostSelection.class);
			assertThat(selection.describe()).isEqualTo("Waybill retention worker runs on host 'orders-7' (name from "
					+ "waybill.retention.machine-name): waybill.retention.machine-names is empty, so every host runs it");
			assertThat(context.getBean(RetentionWorker.class).settings().batchSize()).isEqualTo(1000);
		});
	}

	@Test
	void workerRunsWhereMachineNamesContainsTheHostIgnoringCase() {
		runner().withPropertyValues("waybill.retention.machine-names=orders-1,Orders-2",
				"waybill.retention.machine-name=ORDERS-2").run((context) -> {
					assertThat(context).hasSingleBean(RetentionWorker.class);
					assertThat(context.getBean(RetentionHostSelection.class).reason())
						.isEqualTo("waybill.retention.machine-names [orders-1, Orders-2] contains it");
				});
	}

	@Test
	void workerIsAbsentWhereMachineNamesDoesNotContainTheHost() {
		runner().withPropertyValues("waybill.retention.machine-names=orders-1,orders-2",
				"waybill.retention.machine-name=orders-3").run((context) -> {
					assertThat(context).hasNotFailed().doesNotHaveBean(RetentionWorker.class)
						.doesNotHaveBean(RetentionMetrics.class);
					assertThat(context.getBean(RetentionHostSelection.class).describe()).isEqualTo(
							"Waybill retention worker does not run on host 'orders-3' (name from waybill.retention."
									+ "machine-name): waybill.retention.machine-names [orders-1, orders-2] does not contain it");
				});
	}

	@Test
	void hostNameComesFromTheEnvironmentWhenMachineNameIsNotSet() {
		runner().withPropertyValues("waybill.retention.machine-names=orders-9", "HOSTNAME=ORDERS-9").run((context) -> {
			assertThat(context).hasSingleBean(RetentionWorker.class);
			RetentionHostSelection selection = context.getBean(RetentionHostSelection.class);
			assertThat(selection.hostName()).isEqualTo("ORDERS-9");
			assertThat(selection.source()).isEqualTo("environment variable HOSTNAME");
		});
	}

	@Test
	void workerIsAbsentWhenDisabled() {
		runner().withPropertyValues("waybill.retention.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RetentionWorker.class);
			assertThat(context.getBean(RetentionHostSelection.class).reason())
				.isEqualTo("waybill.retention.enabled is false");
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.retention.batch-size|0|at least 1",
			"waybill.retention.batch-size|-5|at least 1", "waybill.retention.interval|0s|positive duration",
			"waybill.retention.completed-after|-1d|positive duration",
			"waybill.retention.purge-incomplete-after|0s|positive duration",
			"waybill.retention.purge-pending-after|-1s|positive duration",
			"waybill.retention.machine-name|'  '|must not be blank" })
	void invalidValueFailsStartUpNamingTheProperty(String property, String value, String rule) {
		runner().withPropertyValues(property + "=" + value).run((context) -> {
			InvalidConfigurationPropertyValueException failure = StartupFailures.invalidProperty(context);
			assertThat(failure.getName()).isEqualTo(property);
			assertThat(failure.getReason()).contains(rule).contains("Set " + property);
		});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.retention.completed-after|-1d|positive duration",
			"waybill.retention.batch-size|0|at least 1", "waybill.retention.completed-after|10m|shorter than" })
	void invalidValueFailsStartUpAlsoOnHostsThatDoNotRunTheWorker(String property, String value, String rule) {
		for (String[] host : new String[][] {
				{ "waybill.retention.machine-names=ops-1", "waybill.retention.machine-name=orders-1" },
				{ "waybill.retention.enabled=false" } }) {
			runner().withPropertyValues(host).withPropertyValues(property + "=" + value).run((context) -> {
				InvalidConfigurationPropertyValueException failure = StartupFailures.invalidProperty(context);
				assertThat(failure.getName()).isEqualTo(property);
				assertThat(failure.getReason()).contains(rule);
			});
		}
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.retention.batch-size|0|at least 1",
			"waybill.retention.completed-after|10m|shorter than", "waybill.retention.pacing.min-rate|0|at least 1" })
	void invalidValueFailsStartUpAlsoOnHostsThatDoNotRunTheWorkerWithLazyInitialization(String property, String value,
			String rule) {
		// spring.main.lazy-initialization=true: SpringApplication adds this post-processor
		runner().withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withPropertyValues("waybill.retention.machine-names=ops-1", "waybill.retention.machine-name=orders-1",
					property + "=" + value)
			.run((context) -> {
				InvalidConfigurationPropertyValueException failure = StartupFailures.invalidProperty(context);
				assertThat(failure.getName()).isEqualTo(property);
				assertThat(failure.getReason()).contains(rule);
			});
	}

	@Test
	void hostSelectionIsMadeAndLoggedAtStartUpAlsoOnHostsThatDoNotRunTheWorkerWithLazyInitialization() {
		runner().withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withPropertyValues("waybill.retention.machine-names=ops-1", "waybill.retention.machine-name=orders-1")
			.run((context) -> assertThat(context.getBeanFactory().containsSingleton("waybillRetentionHostSelection"))
				.as("selection made (and logged) during start-up").isTrue());
	}

	@Test
	void aMisspeltRetentionKeyFailsStartUpNamingItAndTheProperty() {
		runner().withPropertyValues("waybill.retention.completd-after=30d", "waybill.retention.enabled=false")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context).getFailure()
					.hasMessageContaining("Unknown Waybill configuration property: 'waybill.retention.completd-after'")
					.hasMessageContaining("'waybill.retention.completd-after'")
					.hasMessageContaining("did you mean 'waybill.retention.completed-after'?");
			});
	}

	@Test
	void retentionDeclaresTheInboxWindowItReadsSoTheKeyIsKnownWhereTheInboxModuleIsAbsent() throws Exception {
		// An operations host may run retention without the inbox module: the unknown-key check then
		// knows waybill.inbox.duplicate-detection-window from retention's own metadata.
		String metadata = null;
		for (URL url : Collections.list(getClass().getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			if (url.toString().contains("retention-worker")) {
				try (InputStream in = url.openStream()) {
					metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
				}
			}
		}
		assertThat(metadata).as("retention-worker's configuration metadata")
			.contains("\"name\": \"waybill.inbox.duplicate-detection-window\"");
	}

	@Test
	void relaxedFormsOfRetentionKeysAndTheInboxWindowItReadsAreKnown() {
		runner().withPropertyValues("waybill.retention.machineNames[0]=ops-1", "waybill.retention.machine-name=OPS-1",
				"waybill.retention.completedAfter=2h", "waybill.retention.batch_size=10",
				"waybill.inbox.duplicate-detection-window=1h")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RetentionWorker.class);
				RetentionSettings settings = context.getBean(RetentionWorker.class).settings();
				assertThat(settings.completedAfter()).isEqualTo(Duration.ofHours(2));
				assertThat(settings.batchSize()).isEqualTo(10);
				assertThat(settings.inboxMinimumAge()).isEqualTo(Duration.ofHours(1));
			});
	}

	@Test
	void incompleteRowsArePurgedOnlyOncePurgeIncompleteAfterIsSet() {
		runner().run((context) -> {
			RetentionSettings settings = context.getBean(RetentionWorker.class).settings();
			assertThat(settings.purgeIncomplete()).isFalse();
			assertThat(settings.incompleteAfter()).isEqualTo(RetentionSettings.defaults().incompleteAfter());
		});
		runner().withPropertyValues("waybill.retention.purge-incomplete-after=14d").run((context) -> {
			RetentionSettings settings = context.getBean(RetentionWorker.class).settings();
			assertThat(settings.purgeIncomplete()).isTrue();
			assertThat(settings.incompleteAfter()).isEqualTo(Duration.ofDays(14));
		});
	}

	@Test
	void blankMachineNamesEntryFailsStartUp() {
		runner().withPropertyValues("waybill.retention.machine-names[0]=orders-1", "waybill.retention.machine-names[1]= ")
			.run((context) -> {
				InvalidConfigurationPropertyValueException failure = StartupFailures.invalidProperty(context);
				assertThat(failure.getName()).isEqualTo("waybill.retention.machine-names[1]");
				assertThat(failure.getReason()).contains("must not be blank");
			});
	}

	@Test
	void completedAfterShorterThanTheDuplicateDetectionWindowFailsStartUpNamingBoth() {
		runner().withPropertyValues("waybill.retention.completed-after=10m").run((context) -> {
			InvalidConfigurationPropertyValueException failure = StartupFailures.invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.retention.completed-after");
			assertThat(failure.getReason()).contains("waybill.inbox.duplicate-detection-window (PT30M)")
				.contains("Set waybill.retention.completed-after to at least PT30M");
		});
		runner().withPropertyValues("waybill.retention.completed-after=1h", "waybill.inbox.duplicate-detection-window=2h")
			.run((context) -> assertThat(StartupFailures.invalidProperty(context).getReason())
				.contains("waybill.inbox.duplicate-detection-window (PT2H)"));
		runner().withPropertyValues("waybill.retention.completed-after=1h", "waybill.retention.machine-name=h")
			.run((context) -> assertThat(context.getBean(RetentionWorker.class).settings().inboxMinimumAge())
				.isEqualTo(Duration.ofMinutes(30)));
	}

	@Test
	void scheduledWorkerPurgesEveryIntervalAndRecordsMeters() {
		runner().withPropertyValues("waybill.retention.interval=100ms", "waybill.retention.machine-name=h")
			.run((context) -> {
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				context.getBean(RetentionMetrics.class).bindTo(registry);
				RetentionRows rows = new RetentionRows(schema);
				UUID scope = rows.published("31 days");
				UUID inbox = rows.processed("31 days", "billing");
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					assertThat(rows.scopeExists(scope)).isFalse();
					assertThat(rows.inboxExists(inbox)).isFalse();
					assertThat(registry.get(RetentionMetrics.LAST_RUN).timeGauge().value()).isPositive();
				});
				assertThat(registry.get(RetentionMetrics.PURGED).tag("table", "outbox_state").counter().count()).isEqualTo(1);
				assertThat(registry.get(RetentionMetrics.PURGED).tag("table", "outbox_message").counter().count())
					.isEqualTo(1);
				assertThat(registry.get(RetentionMetrics.PURGED).tag("table", "inbox_state").counter().count()).isEqualTo(1);
				assertThat(registry.get(RetentionMetrics.BATCH_DURATION).timer().count()).isPositive();
				RetentionWorker worker = context.getBean(RetentionWorker.class);
				assertThat(worker.isRunning()).isTrue();
				worker.stop();
				assertThat(worker.isRunning()).isFalse();
			});
	}

}
