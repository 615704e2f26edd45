package dev.waybill.retention.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The retention switches that came with a duration gave way to the duration alone (set: on, unset:
 * off): setting a removed key fails start-up naming the key and the one to set instead, from
 * retention-worker's metadata.
 */
class RemovedRetentionPropertiesTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("removed_retention_keys");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@ParameterizedTest
	@CsvSource({ "waybill.retention.archive=true,waybill.retention.archive-after",
			"waybill.retention.archive=false,waybill.retention.archive-after",
			"waybill.retention.purge-incomplete=true,waybill.retention.purge-incomplete-after",
			"waybill.retention.incomplete-after=90d,waybill.retention.purge-incomplete-after" })
	void aRemovedRetentionKeyFailsStartUpNamingItsReplacement(String setting, String replacement) {
		String key = setting.substring(0, setting.indexOf('='));
		WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRetentionAutoConfiguration.class))
			.withPropertyValues(setting)
			.run((context) -> {
				assertThat(context.getStartupFailure()).isNotNull();
				assertThat(context.getStartupFailure())
					.hasStackTraceContaining("Removed Waybill configuration property: '" + key + "'")
					.hasStackTraceContaining("set '" + replacement + "' instead");
			});
	}

}
