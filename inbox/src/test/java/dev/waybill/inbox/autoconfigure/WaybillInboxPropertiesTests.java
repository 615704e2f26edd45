package dev.waybill.inbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.inbox.test.InboxContext;
import dev.waybill.outbox.test.TestSchema;

/**
 * Bad {@code waybill.inbox.*} values fail start-up naming the property, its value, the rule and
 * the fix.
 */
class WaybillInboxPropertiesTests {

	private static TestSchema schema;

	private static ApplicationContextRunner runner;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("inbox_properties");
		runner = InboxContext.runner(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "concurrency | 0 | at least 1", "prefetch | 0 | at least 1 (0, unlimited,",
			"duplicate-detection-window | 0s | a positive duration", "retry.immediate | -1 | at least 0",
			"retry.interval | -1s | a positive duration", "retry.rate | 0.5 | at least 1",
			"retry.max-delay | 500ms | at least waybill.inbox.retry.interval (PT1S)",
			"retry.max-attempts | 0 | at least 1",
			"retry.jitter | 1.5 | between 0 and 1", "batch.max-size | 0 | at least 1",
			"batch.linger | -1ms | between 0 and 1s", "batch.linger | 2s | between 0 and 1s" })
	void aBadValueFailsStartupNamingTheProperty(String property, String value, String rule) {
		String name = "waybill.inbox." + property;
		runner.withPropertyValues(name + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			Throwable cause = context.getStartupFailure();
			while (cause != null && !(cause instanceof InvalidConfigurationPropertyValueException)) {
				cause = cause.getCause();
			}
			assertThat(cause).as("an invalid-property failure").isInstanceOf(InvalidConfigurationPropertyValueException.class);
			InvalidConfigurationPropertyValueException failure = (InvalidConfigurationPropertyValueException) cause;
			assertThat(failure.getName()).isEqualTo(name);
			assertThat(failure.getMessage()).contains("Property " + name + " with value '")
				.contains("The value must be " + rule)
				.contains("Set " + name + " accordingly.");
		});
	}

}
