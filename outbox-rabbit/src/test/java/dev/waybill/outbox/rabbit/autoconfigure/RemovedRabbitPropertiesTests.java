package dev.waybill.outbox.rabbit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The waybill.rabbit.* connection keys gave way to Spring Boot's spring.rabbitmq.*: setting one
 * fails start-up naming the key and the one to set instead, from outbox-rabbit's metadata.
 */
class RemovedRabbitPropertiesTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("removed_rabbit_keys");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@ParameterizedTest
	@CsvSource({ "waybill.rabbit.host=broker.example,spring.rabbitmq.host",
			"waybill.rabbit.uri=amqp://broker.example,spring.rabbitmq.addresses",
			"waybill.rabbit.connection-timeout=3s,spring.rabbitmq.connection-timeout" })
	void aRemovedConnectionKeyFailsStartUpNamingItsReplacement(String setting, String replacement) {
		String key = setting.substring(0, setting.indexOf('='));
		WaybillContext.runner(schema.name()).withPropertyValues(setting).run((context) -> {
			assertThat(context.getStartupFailure()).isNotNull();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"Removed Waybill configuration property: '" + key + "'")
				.hasStackTraceContaining("set '" + replacement + "' instead");
		});
	}

}
