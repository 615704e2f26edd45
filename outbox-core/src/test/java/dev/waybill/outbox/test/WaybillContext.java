package dev.waybill.outbox.test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.autoconfigure.WaybillMetricsAutoConfiguration;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;

/**
 * An {@link ApplicationContextRunner} set up like a Spring Boot JDBC application with Waybill:
 * the DataSource points at {@link TestPostgres}, Waybill's tables go into the given schema.
 */
public final class WaybillContext {

	private WaybillContext() {
	}

	public static ApplicationContextRunner runner(String schema) {
		TestPostgres postgres = TestPostgres.get();
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, WaybillAutoConfiguration.class,
					WaybillMetricsAutoConfiguration.class, WaybillRelayAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + postgres.url(),
					"spring.datasource.username=" + postgres.user(), "spring.datasource.password=" + postgres.password(),
					"spring.datasource.hikari.maximum-pool-size=10", "spring.datasource.hikari.minimum-idle=1",
					"waybill.schema=" + schema);
	}

}
