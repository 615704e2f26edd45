package dev.waybill.outbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import dev.waybill.outbox.internal.jdbc.SchemaPrivilegeException;
import dev.waybill.outbox.test.StartupFailures;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.WaybillContext;

/**
 * A service whose role may not create what Waybill's schema lacks (a DBA owns the database) fails
 * start-up naming the schema, the role, PostgreSQL's refusal and what to do, instead of a Liquibase
 * stack trace ending in 'permission denied for database test' or 'for schema ...'.
 */
class SchemaPrivilegeTests {

	private final String suffix = UUID.randomUUID().toString().substring(0, 8);

	private final String role = "waybill_app_" + this.suffix;

	private final String schema = "waybill_priv_" + this.suffix;

	@BeforeEach
	void createRole() throws Exception {
		String password = TestPostgres.get().password();
		admin("CREATE ROLE " + this.role + " LOGIN"
				+ ((password == null || password.isEmpty()) ? "" : " PASSWORD '" + password.replace("'", "''") + "'"));
	}

	@AfterEach
	void dropRole() throws Exception {
		admin("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
		admin("DROP OWNED BY " + this.role);
		admin("DROP ROLE " + this.role);
	}

	@Test
	void aMissingSchemaTheRoleMayNotCreateIsNamedWithWhatToDo() {
		runner().run((context) -> {
			SchemaPrivilegeException failure = StartupFailures.causedBy(context, SchemaPrivilegeException.class);
			assertThat(failure.getSchema()).isEqualTo(this.schema);
			FailureAnalysis analysis = analyzerOfBoot().analyze(context.getStartupFailure());
			assertThat(analysis).as("Boot's failure analysis").isNotNull();
			assertThat(analysis.getDescription()).contains("create the schema, which does not exist,")
				.contains("schema '" + this.schema + "'")
				.contains("role '" + this.role + "'")
				.contains("permission denied for database")
				.contains("SQLState 42501");
			assertThat(analysis.getAction()).contains("owns the schema").contains("waybill-changelog.yaml")
				.contains("CREATE on the database");
		});
	}

	@Test
	void anEmptySchemaTheRoleMayOnlyUseIsNamedWithWhatToDo() throws Exception {
		admin("CREATE SCHEMA " + this.schema);
		admin("GRANT USAGE ON SCHEMA " + this.schema + " TO " + this.role);
		runner().run((context) -> {
			SchemaPrivilegeException failure = StartupFailures.causedBy(context, SchemaPrivilegeException.class);
			assertThat(failure.getMessage()).contains("apply its changelog")
				.contains("schema '" + this.schema + "'")
				.contains("role '" + this.role + "'")
				.contains("permission denied for schema " + this.schema)
				.contains("SQLState 42501");
		});
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema)
			.withPropertyValues("spring.datasource.username=" + this.role,
					"waybill.outbox.relay.enabled=false");
	}

	private static void admin(String sql) throws Exception {
		try (Connection admin = TestPostgres.get().connect(); Statement statement = admin.createStatement()) {
			statement.execute(sql);
		}
	}

	/** The analyzer as Boot finds it, through spring.factories. */
	private static FailureAnalyzer analyzerOfBoot() {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, failure) -> {
			}));
		return analyzers.stream()
			.filter(SchemaPrivilegeFailureAnalyzer.class::isInstance)
			.findFirst()
			.orElseThrow(() -> new AssertionError("not registered in META-INF/spring.factories"));
	}

}
