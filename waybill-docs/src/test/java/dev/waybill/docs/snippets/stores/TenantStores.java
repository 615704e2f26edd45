package dev.waybill.docs.snippets.stores;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.Outbox;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

class TenantStores {

  static final ThreadLocal<String> currentTenant = new ThreadLocal<>();

  // tag::resolver[]
  @Configuration
  static class TenantConfiguration {

    @Bean
    StoreResolver storeResolver() {
      // the tenant the application keeps for the request; null lets the transaction tell
      return currentTenant::get;
    }

  }
  // end::resolver[]

  // tag::database[]
  @Configuration
  static class TenantDatabases {

    @Bean
    PlatformTransactionManager acmeTransactions(@Qualifier("acme") DataSource acme) {
      return new DataSourceTransactionManager(acme);
    }

  }

  static class Invoicing {

    private final OutboxPublisher publisher;

    Invoicing(OutboxPublisher publisher) {
      this.publisher = publisher;
    }

    @Outbox(transactionManager = "acmeTransactions")
    void invoice(Invoice invoice) {
      // ... the business writes, on acme's database ...
      this.publisher.publish(new InvoiceIssued(invoice.id()));
    }

  }
  // end::database[]

  void signUp(WaybillStores stores, DataSource database, String tenant) {
    // tag::register[]
    stores.register(new WaybillStore(tenant, database, "waybill")); // creates its tables, then relays it
    // end::register[]
  }

  void leave(WaybillStores stores, String tenant) {
    // tag::deregister[]
    stores.deregister(tenant); // publishes to it fail from now on; its rows stay
    // end::deregister[]
  }

  // tag::handler[]
  static class BillingHandler implements MessageHandler<InvoiceIssued> {

    private final WaybillStores stores;

    BillingHandler(WaybillStores stores) {
      this.stores = stores;
    }

    @Override
    public void handle(InvoiceIssued invoice, MessageContext context) {
      WaybillStore store = this.stores.find(context.store()).orElseThrow();
      // joins the inbox's transaction in that store
      new JdbcTemplate(store.dataSource()).update("INSERT INTO billing.bills (invoice_id) VALUES (?)", invoice.invoiceId());
    }

  }
  // end::handler[]

  record Invoice(String id) {
  }

  record InvoiceIssued(String invoiceId) {
  }

}
