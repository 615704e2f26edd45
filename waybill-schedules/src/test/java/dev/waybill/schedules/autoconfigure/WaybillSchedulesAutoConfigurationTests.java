package dev.waybill.schedules.autoconfigure;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;
import dev.waybill.schedules.internal.JdbcScheduler;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;
import dev.waybill.schedules.ScheduledMessages;
import dev.waybill.schedules.Schedules;
import dev.waybill.schedules.SchedulerProcess.Beat;

import static org.assertj.core.api.Assertions.assertThat;

class WaybillSchedulesAutoConfigurationTests {

	private static final String BEAT = Beat.class.getName();

	private TestSchema schema;

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.create("schedules_config");
	}

	@AfterEach
	void tearDown() {
		this.schema.close();
	}

	private ApplicationContextRunner runner() {
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillSchedulesAutoConfiguration.class))
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=3", "waybill.scheduler.poll-interval=100ms");
	}

	@Test
	void aScheduleDeclaredInPropertiesPublishesItsPayloadAtEachTick() {
		runner().withPropertyValues("waybill.schedules.heartbeat.cron=* * * * * *",
				"waybill.schedules.heartbeat.zone=Europe/Paris", "waybill.schedules.heartbeat.message-type=" + BEAT,
				"waybill.schedules.heartbeat.payload.at=configured", "waybill.schedules.heartbeat.payload.by=yaml",
				"waybill.schedules.heartbeat.destination=amq.fanout", "waybill.schedules.heartbeat.missed-ticks=skip")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Schedules schedules = context.getBean(Schedules.class);
				assertThat(schedules.find("heartbeat")).hasValueSatisfying((status) -> {
					assertThat(status.cron()).isEqualTo("* * * * * *");
					assertThat(status.zone()).isEqualTo("Europe/Paris");
				});
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
				String messages = this.schema.tables().qualifiedOutboxMessage();
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
						"SELECT count(*) FROM " + messages, Integer.class) >= 2);
				assertThat(jdbc.queryForList("SELECT destination || ' ' || message_type || ' ' || convert_from(body, 'UTF8') FROM "
						+ messages, String.class)).allSatisfy((row) -> assertThat(row)
							.startsWith("amq.fanout " + Beat.class.getCanonicalName())
							.contains("\"at\":\"configured\"").contains("\"by\":\"yaml\""));
				assertThat(schedules.pause("heartbeat")).isTrue();
				assertThat(schedules.find("heartbeat").orElseThrow().paused()).isTrue();
			});
	}

	@Test
	void aScheduleBeanAndAScheduledMessagesBeanNamedInPropertiesBothRun() {
		runner().withBean("beanSchedule", Schedule.class, () -> Schedule.cron("from-bean", "* * * * * *",
				(tick, publisher) -> publisher.send("amq.fanout", new Beat(tick.scheduledAt().toString(), "bean")))
			.withMissedTicks(MissedTickPolicy.FIRE_EACH, 3))
			.withBean("reports", ScheduledMessages.class, () -> (tick, publisher) -> publisher.send("amq.fanout",
					new Beat(tick.scheduledAt().toString(), "named")))
			.withPropertyValues("waybill.schedules.named.cron=@hourly", "waybill.schedules.named.bean=reports")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(Schedules.class).list()).extracting("name")
					.containsExactlyInAnyOrder("from-bean", "named");
				assertThat(context.getBean(JdbcScheduler.class).isRunning()).isTrue();
			});
	}

	@Test
	void aBadCronExpressionFailsTheStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=0 0 25 * * *",
				"waybill.schedules.nightly.message-type=" + BEAT)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.cron")
				.hasMessageContaining("0 0 25 * * *")
				.hasMessageContaining("not a valid cron expression"));
	}

	@Test
	void aMisspeltPropertyOfOneScheduleFailsTheStartUpNamingItAndTheRightName() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily", "waybill.schedules.nightly.message-type=" + BEAT,
				"waybill.schedules.nightly.missed-tiks=skip")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("'waybill.schedules.nightly.missed-tiks'")
				.hasMessageContaining("did you mean 'waybill.schedules.nightly.missed-ticks'?"));
	}

	@Test
	void aScheduleNameWithDotsOutsideBracketsIsShownInBrackets() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily", "waybill.schedules.nightly.message-type=" + BEAT,
				"waybill.schedules.reports.eu.missed-ticks=skip")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("'waybill.schedules.reports.eu.missed-ticks'")
				.hasMessageContaining("did you mean 'waybill.schedules[reports.eu].missed-ticks'?"));
	}

	@Test
	void aMissingCronExpressionFailsTheStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.schedules.nightly.message-type=" + BEAT)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.cron"));
	}

	@Test
	void aBadTimeZoneFailsTheStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily", "waybill.schedules.nightly.zone=Mars/Olympus",
				"waybill.schedules.nightly.message-type=" + BEAT)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.zone")
				.hasMessageContaining("Mars/Olympus"));
	}

	@Test
	void anUnknownMessageClassOrNoMessageAtAllFailsTheStartUpNamingTheProperty() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily",
				"waybill.schedules.nightly.message-type=com.acme.Missing")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.message-type")
				.hasMessageContaining("No such class"));
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.message-type")
				.hasMessageContaining("waybill.schedules.nightly.bean"));
	}

	@Test
	void aPayloadThatIsNotTheMessageClassFailsTheStartUp() {
		runner().withPropertyValues("waybill.schedules.nightly.cron=@daily", "waybill.schedules.nightly.message-type=" + BEAT,
				"waybill.schedules.nightly.payload.at.nested=1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("waybill.schedules.nightly.payload"));
	}

}
