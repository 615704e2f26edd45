package dev.waybill.docs.snippets.recurring;

import java.time.Instant;
import java.time.ZoneId;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.waybill.outbox.MessageType;
import dev.waybill.schedules.MissedTickPolicy;
import dev.waybill.schedules.Schedule;

@MessageType("reports.report-due")
record ReportDue(Instant scheduledAt) {}

@Configuration
class NightlyReport {

  // tag::schedule[]
  @Bean
  Schedule nightlyReport() {
      return Schedule.cron("nightly-report", "0 0 2 * * *",
              (tick, publisher) -> publisher.publish(new ReportDue(tick.scheduledAt())))
          .inZone(ZoneId.of("Europe/Paris"))
          .withMissedTicks(MissedTickPolicy.FIRE_EACH, 5);
  }
  // end::schedule[]

}
