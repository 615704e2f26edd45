package dev.waybill.outbox.autoconfigure;

import static dev.waybill.outbox.test.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.internal.JacksonMessageSerializer;
import dev.waybill.outbox.internal.jdbc.JdbcOutboxStore;
import dev.waybill.outbox.internal.jdbc.OutboxSchemaInitializer;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

class WaybillAutoConfigurationTests {

	private TestSchema schema;

	private ApplicationContextRunner runner;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("autoconfig");
		this.runner = WaybillContext.runner(this.schema.name());
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void providesThePublisherStoreAndJsonSerializerAndCreatesTheTables() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(OutboxPublisher.class)
				.hasSingleBean(OutboxStore.class)
				.hasSingleBean(OutboxSchemaInitializer.class);
			assertThat(context.getBean(MessageSerializer.class)).isInstanceOf(JacksonMessageSerializer.class);
			assertThat(tableCount()).isEqualTo(3);
		});
	}

	@Test
	void aWaybillStoreBeanIsRegisteredWithItsTablesCreatedAfterTheConfiguredStores() {
		String configured = this.schema.name() + "_configured";
		String declared = this.schema.name() + "_declared";
		try {
			this.runner.withPropertyValues("waybill.stores.configured.schema=" + configured)
				.withBean("declaredStore", WaybillStore.class,
						() -> new WaybillStore("declared", this.schema.dataSource(), declared))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(WaybillStores.class).all()).extracting(WaybillStore::name)
						.containsExactly("default", "configured", "declared");
					assertThat(new JdbcTemplate(this.schema.dataSource()).queryForObject(
							"SELECT count(*) FROM information_schema.tables WHERE table_schema = ?", Integer.class, declared))
						.as("its tables").isPositive();
				});
		}
		finally {
			this.schema.execute("DROP SCHEMA IF EXISTS " + configured + " CASCADE");
			this.schema.execute("DROP SCHEMA IF EXISTS " + declared + " CASCADE");
		}
	}

	@Test
	void anInvalidSchemaFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("waybill.schema=Orders-DB").run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.schema");
			assertThat(failure.getValue()).isEqualTo("Orders-DB");
			assertThat(failure.getMessage()).contains("Property waybill.schema with value 'Orders-DB' is invalid")
				.contains("must be a lowercase SQL identifier")
				.contains("Set waybill.schema to a name such as 'waybill'");
		});
	}

	@Test
	void aTableNameThatIsAReservedWordFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("waybill.tables.outbox-state=select").run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.tables.outbox-state");
			assertThat(failure.getMessage()).contains("is a reserved word in PostgreSQL")
				.contains("Set waybill.tables.outbox-state to a name such as 'outbox_state'");
		});
	}

	@Test
	void anInjectionAttemptInATableNameFailsStartup() {
		this.runner.withPropertyValues("waybill.tables.inbox-state=inbox; DROP TABLE orders").run((context) -> {
			assertThat(invalidProperty(context).getName()).isEqualTo("waybill.tables.inbox-state");
		});
	}

	@Test
	void aNotificationChannelOverTheLengthLimitFailsStartupNamingTheProperties() {
		this.runner.withPropertyValues("waybill.tables.outbox-state=" + "o".repeat(45)).run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.schema");
			assertThat(failure.getMessage()).contains("notification channel").contains("waybill.tables.outbox-state");
		});
	}

	@Test
	void aNonPositiveMessageLimitFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("waybill.outbox.max-message-bytes=0").run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.outbox.max-message-bytes");
			assertThat(failure.getMessage()).contains("at least 1B");
		});
	}

	@Test
	void withLiquibaseDisabledTheSchemaIsLeftAlone() {
		this.runner.withPropertyValues("waybill.liquibase.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(OutboxSchemaInitializer.class).hasSingleBean(OutboxPublisher.class);
			assertThat(tableCount()).isZero();
		});
	}

	@Test
	void theApplicationsOwnLiquibaseStillRunsBesideWaybills() {
		this.runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
			.withPropertyValues("spring.liquibase.change-log=classpath:db/app/own-only.yaml",
					"spring.liquibase.liquibase-schema=" + this.schema.name(),
					"spring.liquibase.parameters.app.schema=" + this.schema.name())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(tableCount()).isEqualTo(3);
				assertThat(tableExists("customers")).as("the application's changelog ran").isTrue();
			});
	}

	@Test
	void theApplicationsMasterChangelogCanIncludeWaybillsInstead() {
		this.runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
			.withPropertyValues("waybill.liquibase.enabled=false", "spring.liquibase.change-log=classpath:db/app/changelog.yaml",
					"spring.liquibase.liquibase-schema=" + this.schema.name(),
					"spring.liquibase.parameters.waybill.schema=" + this.schema.name())
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(OutboxSchemaInitializer.class);
				assertThat(tableCount()).isEqualTo(3);
				assertThat(tableExists("invoices")).isTrue();
				new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class))
					.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).send("invoices", UUID.randomUUID()));
				assertThat(new JdbcTemplate(this.schema.dataSource())
					.queryForObject("SELECT count(*) FROM " + this.schema.name() + ".outbox_message", Integer.class)).isOne();
			});
	}

	@Test
	void beansUsingJdbcAreCreatedAfterTheTablesExist() {
		this.runner.withUserConfiguration(EarlyReader.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(EarlyReader.Count.class).value()).isZero();
		});
	}

	@Test
	void backsOffWithoutADataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WaybillAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxPublisher.class)
				.doesNotHaveBean(JdbcOutboxStore.class));
	}

	@Test
	void backsOffForAnApplicationsOwnPublisher() {
		OutboxPublisher own = new OutboxPublisher() {
			@Override
			public UUID publish(Object message, java.util.function.Consumer<dev.waybill.outbox.PublishOptions> options) {
				return UUID.randomUUID();
			}

			@Override
			public UUID send(String destination, Object message, java.util.function.Consumer<dev.waybill.outbox.PublishOptions> options) {
				return UUID.randomUUID();
			}
		};
		this.runner.withBean(OutboxPublisher.class, () -> own)
			.run((context) -> assertThat(context).getBean(OutboxPublisher.class).isSameAs(own));
	}

	private int tableCount() {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM information_schema.tables "
				+ "WHERE table_schema = ? AND table_name IN ('outbox_state', 'outbox_message', 'inbox_state')",
				Integer.class, this.schema.name());
	}

	private boolean tableExists(String table) {
		return new JdbcTemplate(this.schema.dataSource()).queryForObject("SELECT count(*) FROM information_schema.tables "
				+ "WHERE table_schema = ? AND table_name = ?", Integer.class, this.schema.name(), table) == 1;
	}

	/**
	 * Reads Waybill's table while the context starts, as an application's start-up code may.
	 */
	@Configuration(proxyBeanMethods = false)
	static class EarlyReader {

		record Count(int value) {
		}

		@Bean
		Count earlyCount(JdbcTemplate jdbc, DataSource dataSource, dev.waybill.kernel.OutboxTables tables) {
			return new Count(jdbc.queryForObject("SELECT count(*) FROM " + tables.qualifiedOutboxState(), Integer.class));
		}

	}

}
