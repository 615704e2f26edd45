package dev.waybill.retention.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.retention.RetentionArchive;
import dev.waybill.retention.internal.RetentionWorker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code waybill.retention.archive-after}: unset, no archive; set, the archive and how long it keeps messages.
 */
class RetentionArchiveConfigurationTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_archive_config");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=3");
	}

	@Test
	void archivingIsOffByDefault() {
		runner().run((context) -> assertThat(context.getBean(RetentionWorker.class).archive())
			.isEqualTo(new RetentionArchive(false, Duration.ofDays(90))));
	}

	@Test
	void archiveAfterTurnsTheArchiveOnAndReachesTheWorker() {
		runner().withPropertyValues("waybill.retention.archive-after=14d")
			.run((context) -> assertThat(context.getBean(RetentionWorker.class).archive())
				.isEqualTo(new RetentionArchive(true, Duration.ofDays(14))));
	}

	@Test
	void aNonPositiveArchiveAfterFailsTheStartUpAlsoWhereTheWorkerDoesNotRun() {
		runner().withPropertyValues("waybill.retention.archive-after=0s", "waybill.retention.machine-names=ops-1",
				"waybill.retention.machine-name=orders-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.retention.archive-after")
				.hasMessageContaining("positive duration"));
	}

}
