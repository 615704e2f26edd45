package dev.waybill.outbox.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.health.WaybillHealthContributorAutoConfiguration;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * The {@code waybill} health contributor on PostgreSQL in a service without a relay (no transport):
 * the {@code backlog} component turns OUT_OF_SERVICE once a scope has been due for longer than
 * {@code waybill.health.backlog.max-age}, and not for a scope published for later.
 */
class WaybillHealthIntegrationTests {

	private TestSchema schema;

	@BeforeEach
	void createSchema() {
		this.schema = TestSchema.create("health");
	}

	@AfterEach
	void dropSchema() {
		this.schema.close();
	}

	@Test
	void aBacklogOlderThanTheMaximumIsOutOfService() {
		runner().withPropertyValues("waybill.health.backlog.max-age=300ms").run((context) -> {
			assertThat(context).hasNotFailed();
			Health empty = component(context, "backlog");
			assertThat(empty.getStatus()).isEqualTo(Status.UP);
			assertThat(empty.getDetails()).containsEntry("pendingScopes", 0L).containsEntry("maxAge", "PT0.3S");
			assertThat(component(context, "relay")).as("no relay without a transport").isNull();

			publish(context, "one");
			Health fresh = component(context, "backlog");
			assertThat(fresh.getStatus()).isEqualTo(Status.UP);
			assertThat(fresh.getDetails()).containsEntry("pendingScopes", 1L).containsEntry("pendingMessages", 1L);

			// nothing delivers it: no relay runs
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> component(context, "backlog").getStatus().equals(Status.OUT_OF_SERVICE));
			assertThat(component(context, "backlog").getDetails()).containsKeys("oldestDueFor", "oldestPendingAge",
					"dueScopes", "deadScopes");
		});
	}

	@Test
	void aScopePublishedForLaterDoesNotMakeTheBacklogStale() {
		runner().withPropertyValues("waybill.health.backlog.max-age=300ms").run((context) -> {
			OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> publisher.publish(new Note("later"),
						(options) -> options.notBefore(Instant.now().plus(Duration.ofHours(1)))));
			// stays UP well past max-age
			Awaitility.await()
				.during(Duration.ofMillis(800))
				.atMost(Duration.ofSeconds(5))
				.until(() -> component(context, "backlog").getStatus().equals(Status.UP));

			Health backlog = component(context, "backlog");
			assertThat(backlog.getStatus()).isEqualTo(Status.UP);
			assertThat(backlog.getDetails()).containsEntry("pendingScopes", 1L)
				.containsEntry("dueScopes", 0L)
				.containsEntry("oldestDueFor", "PT0S");
		});
	}

	@Test
	void aCheckAnswersDownWithinItsTimeoutWhileALockIsHeldOnTheOutboxAndUpOnceItIsReleased() throws Exception {
		runner().withPropertyValues("waybill.health.backlog.timeout=500ms").run((context) -> {
			assertThat(component(context, "backlog").getStatus()).isEqualTo(Status.UP);
			try (Connection locker = this.schema.dataSource().getConnection()) {
				locker.setAutoCommit(false);
				try (Statement statement = locker.createStatement()) {
					statement.execute("LOCK TABLE " + this.schema.name() + ".outbox_state IN ACCESS EXCLUSIVE MODE");
				}
				for (int check = 0; check < 3; check++) {
					long started = System.nanoTime();
					Health health = CompletableFuture.supplyAsync(() -> component(context, "backlog"))
						.get(10, TimeUnit.SECONDS);
					Duration took = Duration.ofNanos(System.nanoTime() - started);
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					assertThat((String) health.getDetails().get("error")).contains("did not answer within PT0.5S");
					assertThat(took).isLessThan(Duration.ofSeconds(2));
				}
				assertThat(Thread.getAllStackTraces().keySet().stream()
					.filter((thread) -> thread.getName().equals("waybill-health-backlog")))
					.as("checks while a read waits share it").hasSize(1);
				locker.rollback();
			}
			Awaitility.await()
				.atMost(Duration.ofSeconds(5))
				.until(() -> component(context, "backlog").getStatus().equals(Status.UP));
		});
	}

	@Test
	void aTimeoutThatIsNotPositiveFailsStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.health.backlog.timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("waybill.health.backlog.timeout")
				.hasMessageContaining("must be positive"));
	}

	@Test
	void isOffWhenManagementHealthWaybillIsDisabled() {
		runner().withPropertyValues("management.health.waybill.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("waybillHealthContributor")
				.doesNotHaveBean(BacklogHealthIndicator.class));
	}

	@Test
	void isOffWithoutSpringBootsHealthSupport() {
		runner().withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("waybillHealthContributor")
				.doesNotHaveBean(BacklogHealthIndicator.class));
	}

	@Test
	void aMaximumAgeThatIsNotPositiveFailsStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.health.backlog.max-age=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("waybill.health.backlog.max-age")
				.hasMessageContaining("must be positive"));
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillHealthContributorAutoConfiguration.class));
	}

	private static void publish(ApplicationContext context, String text) {
		OutboxPublisher publisher = context.getBean(OutboxPublisher.class);
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> publisher.publish(new Note(text)));
	}

	static Health component(ApplicationContext context, String name) {
		CompositeHealthContributor waybill = context.getBean("waybillHealthContributor",
				CompositeHealthContributor.class);
		HealthIndicator indicator = (HealthIndicator) waybill.getContributor(name);
		return (indicator != null) ? indicator.health() : null;
	}

	record Note(String text) {
	}

}
