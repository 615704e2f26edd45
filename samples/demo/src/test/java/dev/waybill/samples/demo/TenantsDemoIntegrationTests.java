package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The tenants scenario ({@code ./demo --tenants}) on the real PostgreSQL and RabbitMQ of the
 * tests: two tenants, a store each, every invoice entered once in its own tenant's ledger.
 */
class TenantsDemoIntegrationTests {

	@Test
	void everyInvoiceIsEnteredOnceInItsOwnTenantsLedger() throws Exception {
		try (SampleInfrastructure infrastructure = SampleInfrastructure.create("tenants")) {
			ConfigurableEnvironment configured = new StandardEnvironment();
			configured.getPropertySources()
				.addFirst(new SimpleCommandLinePropertySource(infrastructure.arguments().toArray(String[]::new)));
			ByteArrayOutputStream out = new ByteArrayOutputStream();

			boolean ok = Demo.runTenants(new DemoOptions(100, 4, 0, 0, Duration.ofSeconds(60), infrastructure.arguments()),
					configured, new PrintStream(out, true, StandardCharsets.UTF_8));

			assertThat(ok).as(out.toString(StandardCharsets.UTF_8)).isTrue();
			assertThat(out.toString(StandardCharsets.UTF_8)).contains("acme:       100 of 100 invoices entered in its own ledger")
				.contains("globex:     100 of 100 invoices entered in its own ledger")
				.contains("OK: every tenant's invoice was entered exactly once, in its own store.")
				.containsPattern("Statements: default [1-9]\\d* run\\(s\\) in its own store, 0 of others; acme [1-9]\\d* run\\(s\\) in its own store, 0 of others; globex [1-9]\\d* run\\(s\\) in its own store, 0 of others");
		}
	}

	@Test
	void theCommandLineRunsIt() {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		int exitCode = Demo.run(new String[] { "--tenants", "--orders=1" },
				new PrintStream(out, true, StandardCharsets.UTF_8));
		assertThat(exitCode).as("its options are checked as the demo's").isEqualTo(2);
		assertThat(out.toString(StandardCharsets.UTF_8)).as("--tenants is the demo's flag, the bad option --orders")
			.contains("--orders")
			.doesNotContain("Unknown option --tenants");
		assertThat(List.of(DemoOptions.USAGE)).anyMatch((usage) -> usage.contains("--tenants"));
	}

}
