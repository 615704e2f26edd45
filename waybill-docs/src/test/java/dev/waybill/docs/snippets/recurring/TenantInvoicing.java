package dev.waybill.docs.snippets.recurring;

import java.time.Instant;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.waybill.outbox.MessageType;
import dev.waybill.schedules.Schedule;

@MessageType("invoicing.invoice-run-due")
record InvoiceRunDue(String tenant, Instant scheduledAt) {}

@Configuration
class TenantInvoicing {

  // tag::schedule[]
  @Bean
  Schedule monthlyInvoices() {
      // each tenant's invoice run, in the tenant's own store: its rows, its outbox
      return Schedule.cron("monthly-invoices", "0 0 3 1 * *",
              (tick, publisher) -> publisher.publish(new InvoiceRunDue(tick.store(), tick.scheduledAt())))
          .inEveryStore();
  }
  // end::schedule[]

}
