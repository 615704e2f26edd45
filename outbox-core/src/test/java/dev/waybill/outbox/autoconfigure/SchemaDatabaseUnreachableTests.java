package dev.waybill.outbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import dev.waybill.outbox.internal.jdbc.SchemaDatabaseUnreachableException;
import dev.waybill.outbox.test.StartupFailures;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.WaybillContext;

/**
 * A database Waybill cannot reach at start-up fails it with Spring Boot's failure report naming the
 * driver's reason and what to do, instead of a stack trace whose reason is at the bottom.
 */
class SchemaDatabaseUnreachableTests {

	@Test
	void aDatabaseThatIsDownFailsStartUpWithTheDriversReasonAndWhatToDo() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		runner("jdbc:postgresql://127.0.0.1:" + closedPort + "/test").run((context) -> {
			SchemaDatabaseUnreachableException failure = unreachable(context);
			assertThat(failure.getSchema()).isEqualTo("waybill_unreachable");
			FailureAnalysis analysis = analyzerOfBoot().analyze(context.getStartupFailure());
			assertThat(analysis).as("Boot's failure analysis").isNotNull();
			assertThat(analysis.getDescription()).contains("schema 'waybill_unreachable'")
				.contains("127.0.0.1:" + closedPort)
				.contains("refused")
				.contains("SQLState 08001");
			assertThat(analysis.getAction()).contains("Start PostgreSQL before the service")
				.contains("spring.datasource.url");
		});
	}

	@Test
	void aDatabaseThatDoesNotExistIsNamed() {
		String url = TestPostgres.get().url().replaceFirst("/[^/?]+(\\?|$)", "/waybill_no_such_database$1");
		runner(url).run((context) -> assertThat(new SchemaDatabaseUnreachableFailureAnalyzer()
			.analyze(unreachable(context)).getDescription()).contains("\"waybill_no_such_database\" does not exist")
			.contains("SQLState 3D000"));
	}

	/**
	 * A database that runs but takes no more connections (SQLState 53300, here the role's
	 * CONNECTION LIMIT, as max_connections reached would) is not told to be started: a probe's
	 * report said "Start PostgreSQL before the service" for it.
	 */
	@Test
	void aDatabaseThatTakesNoMoreConnectionsIsToldAsFullNotAsDown() throws Exception {
		String role = "waybill_full_" + UUID.randomUUID().toString().substring(0, 8);
		try (Connection admin = TestPostgres.get().connect(); Statement statement = admin.createStatement()) {
			statement.execute("CREATE ROLE " + role + " LOGIN CONNECTION LIMIT 0");
		}
		try {
			runner(TestPostgres.get().url()).withPropertyValues("spring.datasource.username=" + role,
					"spring.datasource.password=")
				.run((context) -> {
					SchemaDatabaseUnreachableException failure = unreachable(context);
					assertThat(failure.getSqlState()).isEqualTo("53300");
					FailureAnalysis analysis = analyzerOfBoot().analyze(context.getStartupFailure());
					assertThat(analysis.getDescription()).contains("too many connections for role")
						.contains("SQLState 53300");
					assertThat(analysis.getAction()).contains("takes no more connections")
						.contains("max_connections")
						.contains("spring.datasource.hikari.maximum-pool-size")
						.doesNotContain("Start PostgreSQL");
				});
		}
		finally {
			try (Connection admin = TestPostgres.get().connect(); Statement statement = admin.createStatement()) {
				statement.execute("DROP ROLE IF EXISTS " + role);
			}
		}
	}

	private static ApplicationContextRunner runner(String url) {
		return WaybillContext.runner("waybill_unreachable")
			.withPropertyValues("spring.datasource.url=" + url, "spring.datasource.hikari.connection-timeout=2000",
					"spring.datasource.hikari.initialization-fail-timeout=-1");
	}

	private static SchemaDatabaseUnreachableException unreachable(AssertableApplicationContext context) {
		return StartupFailures.causedBy(context, SchemaDatabaseUnreachableException.class);
	}

	/** The analyzer as Boot finds it, through spring.factories. */
	private static FailureAnalyzer analyzerOfBoot() {
		// Boot's own analyzers that need constructor arguments are skipped
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, FailureHandler.handleMessage((message, failure) -> {
			}));
		return analyzers.stream()
			.filter(SchemaDatabaseUnreachableFailureAnalyzer.class::isInstance)
			.findFirst()
			.orElseThrow(() -> new AssertionError("not registered in META-INF/spring.factories"));
	}

}
