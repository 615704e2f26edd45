package dev.waybill.outbox.autoconfigure;

import static dev.waybill.outbox.test.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.waybill.outbox.autoconfigure.UnknownWaybillPropertyException.UnknownProperty;
import dev.waybill.outbox.test.StartupFailures;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * A {@code waybill.*} key that no Waybill property binds fails start-up naming it and the closest
 * known property; a removed key fails naming why; every relaxed form of a known key, map keys and
 * list indexes are accepted; and
 * {@code waybill.*} values are checked on every host, also where no relay runs.
 */
class UnknownWaybillPropertyTests {

	private static TestSchema schema;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("unknown_keys");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	private static ApplicationContextRunner runner() {
		return WaybillContext.runner(schema.name());
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.relay.bach-size|waybill.outbox.relay.batch-size",
			"waybill.outbox.relay.bach-size|waybill.outbox.relay.batch-size",
			"waybill.outbox.relay.leaseDuraton|waybill.outbox.relay.lease-duration",
			"waybill.schmea|waybill.schema", "waybill.outbox.retry.max-attempt|waybill.outbox.retry.max-attempts",
			"waybill.tables.outbox_stat|waybill.tables.outbox-state",
			"waybill.extension.limits.maxx|waybill.extension.limits.max",
			"waybill.extension.label.team|waybill.extension.labels.team",
			"waybill.extension.tiers.gold.maxx|waybill.extension.tiers.gold.max" })
	void aMisspeltKeyFailsStartupNamingItAndTheClosestKnownProperty(String key, String closest) {
		runner().withUserConfiguration(ExtensionConfiguration.class).withPropertyValues(key + "=5").run((context) -> {
			UnknownWaybillPropertyException failure = unknownProperty(context);
			assertThat(failure.getProperties()).singleElement().satisfies((unknown) -> {
				assertThat(unknown.closest()).isEqualTo(closest);
				assertThat(unknown.origin()).contains("from property source \"test\"");
			});
			String canonical = failure.getProperties().get(0).name();
			assertThat(failure.getMessage()).startsWith("Unknown Waybill configuration property: '" + canonical + "'")
				.contains("did you mean '" + closest + "'?");
		});
	}

	@Test
	void everyUnknownKeyIsNamedAndTheFailureAnalysisListsThem() {
		runner().withPropertyValues("waybill.retention.completd-after=30d", "waybill.relay.bach-size=5",
				"waybill.outbox.relay.batch-size=5").run((context) -> {
					UnknownWaybillPropertyException failure = unknownProperty(context);
					assertThat(failure.getProperties()).extracting(UnknownProperty::name)
						.containsExactlyInAnyOrder("waybill.retention.completd-after", "waybill.relay.bach-size");
					FailureAnalysis analysis = new UnknownWaybillPropertyFailureAnalyzer().analyze(failure);
					assertThat(analysis.getDescription()).contains("'waybill.retention.completd-after'")
						.contains("'waybill.relay.bach-size'")
						.contains("did you mean 'waybill.outbox.relay.batch-size'?");
					assertThat(analysis.getAction()).contains("Correct each key");
				});
	}

	@Test
	void everyRelaxedFormOfAKnownKeyMapKeysAndListIndexesAreAccepted() {
		runner().withUserConfiguration(ExtensionConfiguration.class)
			.withPropertyValues("waybill.outbox.relay.batch-size=7", "waybill.outbox.relay.pollInterval=2s",
					"waybill.outbox.retry.max_attempts=4", "waybill.OUTBOX.circuit-breaker.COOL-DOWN=3s",
					"waybill.extension.labels.team=payments", "waybill.extension.labels.cost-centre=42",
					"waybill.extension.names[0]=a", "waybill.extension.names[1]=b", "waybill.extension.limits.max=3",
					"waybill.extension.routes[0].exchange=orders", "waybill.extension.tiers.gold.max=9",
					"waybill.extension.tiers.silver-plus.max=4")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				WaybillProperties properties = context.getBean(WaybillProperties.class);
				assertThat(properties.getOutbox().getRelay().getBatchSize()).isEqualTo(7);
				assertThat(properties.getOutbox().getRetry().getMaxAttempts()).isEqualTo(4);
				ExtensionProperties extension = context.getBean(ExtensionProperties.class);
				assertThat(extension.getLabels()).containsEntry("team", "payments").containsEntry("cost-centre", "42");
				assertThat(extension.getNames()).containsExactly("a", "b");
				assertThat(extension.getTiers().get("gold").getMax()).isEqualTo(9);
				assertThat(extension.getTiers().get("silver-plus").getMax()).isEqualTo(4);
			});
	}

	@Test
	void environmentVariablesAreRecognisedAndAnUnknownOneIsNotFatal() {
		// As for Spring Boot's ignoreUnknownFields: environment variables are shared with other software.
		Map<String, Object> variables = new LinkedHashMap<>();
		variables.put("WAYBILL_OUTBOX_RELAY_BATCHSIZE", "9");
		variables.put("WAYBILL_OUTBOX_RETRY_MAX_ATTEMPTS", "4"); // the legacy form, which still binds
		variables.put("WAYBILL_EXTENSION_LABELS_TEAM", "payments");
		variables.put("WAYBILL_EXTENSION_NAMES_0", "a");
		variables.put("WAYBILL_OUTBOX_RELAY_BACH_SIZE", "9");
		variables.put("WAYBILL_TESTING_MODE", "on");
		runner().withUserConfiguration(ExtensionConfiguration.class)
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
						StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				WaybillProperties properties = context.getBean(WaybillProperties.class);
				assertThat(properties.getOutbox().getRelay().getBatchSize()).isEqualTo(9);
				assertThat(properties.getOutbox().getRetry().getMaxAttempts()).isEqualTo(4);
				ExtensionProperties extension = context.getBean(ExtensionProperties.class);
				assertThat(extension.getLabels()).containsEntry("team", "payments");
				assertThat(extension.getNames()).containsExactly("a");
			});
	}

	/**
	 * {@code waybill.outbox.relay: false} reads like "no relay", but nothing binds a value on a group
	 * of properties: Spring Boot ignores it and the relay runs. It fails like a misspelt key,
	 * suggesting a property of the group.
	 */
	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "waybill.outbox.relay|false|waybill.outbox.relay.enabled",
			"waybill.outbox.circuit-breaker|off|waybill.outbox.circuit-breaker.",
			"waybill.extension.limits|3|waybill.extension.limits.max",
			"waybill.extension.tiers.gold|9|waybill.extension.tiers.gold.max" })
	void aValueOnAGroupOfPropertiesFailsStartupSuggestingOneOfThem(String group, String value, String suggested) {
		runner().withUserConfiguration(ExtensionConfiguration.class).withPropertyValues(group + "=" + value)
			.run((context) -> {
				UnknownWaybillPropertyException failure = unknownProperty(context);
				assertThat(failure.getProperties()).singleElement().satisfies((unknown) -> {
					assertThat(unknown.name()).isEqualTo(group);
					assertThat(unknown.closest()).startsWith(suggested);
				});
			});
	}

	@ParameterizedTest
	@CsvSource({ "waybill.outbox.relay", "waybill.extension.tiers.gold", "waybill.extension.limits" })
	void anEmptyGroupOfPropertiesIsNoUnknownProperty(String group) {
		// What "relay:" with nothing below it is in YAML, and "relay=" in a properties file: it sets
		// nothing. (Whether Spring Boot binds an empty string to the group's class is its own affair.)
		runner().withUserConfiguration(ExtensionConfiguration.class).withPropertyValues(group + "=").run((context) -> {
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				assertThat(cause).isNotInstanceOf(UnknownWaybillPropertyException.class);
			}
		});
	}

	@Test
	void aKnownPropertyWithAnEmptyValueIsNoUnknownProperty() {
		// "grace:" with no value in YAML reads as unset, not as a misspelt key: the binder leaves
		// it unbound all the same, the empty value converting to no Duration
		runner().withUserConfiguration(ExtensionConfiguration.class).withPropertyValues("waybill.extension.grace=")
			.run((context) -> {
				for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
					assertThat(cause).isNotInstanceOf(UnknownWaybillPropertyException.class);
				}
			});
	}

	@Test
	void aRemovedKeyFailsStartupNamingWhy() {
		runner().withPropertyValues("waybill.fail-on-unknown-properties=false", "waybill.relay.bach-size=5")
			.run((context) -> {
				RemovedWaybillPropertyException failure = StartupFailures.causedBy(context,
						RemovedWaybillPropertyException.class);
				assertThat(failure.getMessage())
					.startsWith("Removed Waybill configuration property: 'waybill.fail-on-unknown-properties' (from ")
					.contains("from property source \"test\") was removed")
					.contains("misspelt");
			});
	}

	@ParameterizedTest
	@CsvSource({ "waybill.outbox.relay.enabled=true", "waybill.outbox.relay.enabled=false" })
	void relayPropertiesAreCheckedAlsoWhereNoRelayRuns(String relay) {
		// No Transport bean: no relay on this host, yet a bad relay value fails here too.
		runner().withPropertyValues(relay, "waybill.outbox.relay.lease-duration=-5s").run((context) -> {
			assertThat(invalidProperty(context).getName()).isEqualTo("waybill.outbox.relay.lease-duration");
			assertThat(invalidProperty(context).getMessage()).contains("a positive duration");
		});
		runner().withPropertyValues(relay, "waybill.outbox.retry.max-attempts=0")
			.run((context) -> assertThat(invalidProperty(context).getName()).isEqualTo("waybill.outbox.retry.max-attempts"));
	}

	private static UnknownWaybillPropertyException unknownProperty(AssertableApplicationContext context) {
		return StartupFailures.causedBy(context, UnknownWaybillPropertyException.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(ExtensionProperties.class)
	static class ExtensionConfiguration {

	}

	/**
	 * Properties of another module under {@code waybill.*}, with no configuration metadata: its
	 * names are known from the class alone.
	 */
	@ConfigurationProperties("waybill.extension")
	static class ExtensionProperties {

		private Map<String, String> labels = new LinkedHashMap<>();

		private List<String> names = new ArrayList<>();

		private List<Route> routes = new ArrayList<>();

		private final Limits limits = new Limits();

		private @Nullable Duration grace;

		private Map<String, Limits> tiers = new LinkedHashMap<>();

		public @Nullable Duration getGrace() {
			return this.grace;
		}

		public void setGrace(@Nullable Duration grace) {
			this.grace = grace;
		}

		public Map<String, Limits> getTiers() {
			return this.tiers;
		}

		public void setTiers(Map<String, Limits> tiers) {
			this.tiers = tiers;
		}

		public Map<String, String> getLabels() {
			return this.labels;
		}

		public void setLabels(Map<String, String> labels) {
			this.labels = labels;
		}

		public List<String> getNames() {
			return this.names;
		}

		public void setNames(List<String> names) {
			this.names = names;
		}

		public List<Route> getRoutes() {
			return this.routes;
		}

		public void setRoutes(List<Route> routes) {
			this.routes = routes;
		}

		public Limits getLimits() {
			return this.limits;
		}

		record Route(String exchange) {
		}

		static class Limits {

			private int max;

			public int getMax() {
				return this.max;
			}

			public void setMax(int max) {
				this.max = max;
			}

		}

	}

}
