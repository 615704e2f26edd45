package dev.waybill.retention.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.retention.RetentionRunner;
import dev.waybill.retention.internal.RetentionPacing;
import dev.waybill.retention.internal.RetentionWorker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code waybill.retention.pacing.*}.
 */
class RetentionPacingConfigurationTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("retention_pacing_config");
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
	void theWorkerIsPacedByDefault() {
		runner().run((context) -> assertThat(context.getBean(RetentionWorker.class).pacing())
			.isEqualTo(RetentionPacing.defaults()));
	}

	@Test
	void pacingPropertiesReachTheWorker() {
		runner().withPropertyValues("waybill.retention.pacing.max-rate=40000", "waybill.retention.pacing.min-rate=8000")
			.run((context) -> assertThat(context.getBean(RetentionWorker.class).pacing())
				.isEqualTo(new RetentionPacing(true, 40_000, 8_000)));
	}

	@Test
	void pacingCanBeSwitchedOff() {
		runner().withPropertyValues("waybill.retention.pacing.enabled=false")
			.run((context) -> assertThat(context.getBean(RetentionWorker.class).pacing().enabled()).isFalse());
	}

	@Test
	void theWorkerRunsOnDemandAsTheRetentionRunnerBean() {
		runner().withPropertyValues("waybill.retention.pacing.enabled=false").run((context) -> {
			assertThat(context.getBean(RetentionRunner.class)).isSameAs(context.getBean(RetentionWorker.class));
			assertThat(context.getBean(RetentionRunner.class).runOnce().skipped()).isFalse();
		});
	}

	@Test
	void aMaxRateBelowTheMinRateFailsTheStartUpAlsoWhereTheWorkerDoesNotRun() {
		runner().withPropertyValues("waybill.retention.pacing.max-rate=1000", "waybill.retention.machine-names=ops-1",
				"waybill.retention.machine-name=orders-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.retention.pacing.max-rate")
				.hasMessageContaining("min-rate"));
	}

	@Test
	void aMinRateBelowOneFailsTheStartUp() {
		runner().withPropertyValues("waybill.retention.pacing.min-rate=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.retention.pacing.min-rate"));
	}

}
