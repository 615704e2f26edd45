package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The demo's scenario, smaller: on the embedded default (embedded PostgreSQL, Qpid Broker-J) and on
 * the real PostgreSQL and RabbitMQ of the tests. Every first billing attempt fails on purpose, so
 * the retries are exactly countable.
 */
class DemoIntegrationTests {

	private static final int ORDERS = 100;

	private static final int DUPLICATES = 5;

	/** The failed attempts of the unbillable order before the error queue: none, billing never retries it. */
	private static final int UNBILLABLE_RETRIES = 0;

	@Test
	void everyOrderIsBilledExactlyOnceOnTheEmbeddedDefault() throws Exception {
		ConfigurableEnvironment nothingConfigured = new StandardEnvironment();
		MutablePropertySources sources = nothingConfigured.getPropertySources();
		sources.remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		sources.remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		ByteArrayOutputStream out = new ByteArrayOutputStream();

		DemoResult result = Demo.run(options(List.of()), nothingConfigured, new PrintStream(out, true,
				StandardCharsets.UTF_8));

		assertExactlyOnce(result);
		assertThat(out.toString(StandardCharsets.UTF_8)).contains("started an embedded PostgreSQL on port")
			.contains("started an in-memory AMQP 0-9-1 broker (Apache Qpid Broker-J)");
	}

	@Test
	void everyOrderIsBilledExactlyOnceOnTheRealServices() throws Exception {
		try (SampleInfrastructure infrastructure = SampleInfrastructure.create("demo")) {
			String[] args = infrastructure.arguments().toArray(String[]::new);
			ConfigurableEnvironment configured = new StandardEnvironment();
			configured.getPropertySources().addFirst(new SimpleCommandLinePropertySource(args));
			ByteArrayOutputStream out = new ByteArrayOutputStream();

			DemoResult result = Demo.run(options(infrastructure.arguments()), configured,
					new PrintStream(out, true, StandardCharsets.UTF_8));

			assertExactlyOnce(result);
			assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("embedded")
				.contains("PostgreSQL: jdbc:postgresql://");
		}
	}

	@Test
	void badOptionsAreRefusedNamingTheOption() {
		ByteArrayOutputStream out = new ByteArrayOutputStream();

		int exitCode = Demo.run(new String[] { "--orders=1" }, new PrintStream(out, true, StandardCharsets.UTF_8));

		assertThat(exitCode).isEqualTo(2);
		assertThat(out.toString(StandardCharsets.UTF_8)).contains("--orders=1 is invalid: it must be at least 2");
	}

	private static DemoOptions options(List<String> serviceArguments) {
		return new DemoOptions(ORDERS, 4, 1.0, DUPLICATES, Duration.ofSeconds(120), serviceArguments);
	}

	private static void assertExactlyOnce(DemoResult result) {
		assertThat(result.problems()).isEmpty();
		assertThat(result.ok()).isTrue();
		assertThat(result.orders()).isEqualTo(ORDERS);
		assertThat(result.unbillable()).isEqualTo(1);
		assertThat(result.billedOnce()).isEqualTo(ORDERS - 1);
		assertThat(result.billedTwice()).isZero();
		assertThat(result.unbilled()).isZero();
		// A republished copy that arrives while its original's failing first attempt rolls back
		// runs as a first attempt too, and fails on purpose as well: at most one retry more per copy.
		long retries = ORDERS - 1 + UNBILLABLE_RETRIES;
		assertThat(result.retried()).isBetween(retries, retries + result.duplicatesSuppressed());
		// The scopes of 5 orders: an OrderPlaced each, and a CustomerRegistered where it was a first order.
		assertThat(result.republished()).isBetween((long) DUPLICATES, 2L * DUPLICATES);
		assertThat(result.duplicatesSuppressed()).isGreaterThanOrEqualTo(result.republished());
		assertThat(result.errors()).isEqualTo(1);
		assertThat(result.errorQueueDepth()).isEqualTo(1);
		assertThat(result.purged()).isPositive();
		assertThat(result.summary()).contains("billed exactly once    99 of 99 billable orders (0 billed twice, 0 not billed)")
			.contains("OK: every order was billed exactly once.");
	}

}
