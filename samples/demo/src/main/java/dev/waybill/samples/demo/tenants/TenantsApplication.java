package dev.waybill.samples.demo.tenants;

import javax.sql.DataSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;
import dev.waybill.schedules.Schedule;

/**
 * An invoicing service with a schema per tenant ({@code tenants.yml}: the stores {@code acme} and
 * {@code globex}): it issues invoices and enters them in each tenant's ledger, through the outbox
 * and the inbox of the tenant's own store, and runs each store's statements on a schedule that
 * fires in every store.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TenantsApplication {

	/** Builds the application, configured by {@code tenants.yml}. */
	static SpringApplication application() {
		SpringApplication application = new SpringApplication(TenantsApplication.class);
		application.setDefaultProperties(java.util.Map.of("spring.config.name", "tenants"));
		return application;
	}

	@Bean
	StoreResolver storeResolver() {
		return Tenant::current;
	}

	@Bean
	Invoicing invoicing(JdbcTemplate jdbc, TransactionTemplate transactions, OutboxPublisher publisher,
			WaybillStores stores) {
		return new Invoicing(jdbc, transactions, publisher, stores);
	}

	@Bean
	Ledger ledger(WaybillStores stores, JdbcTemplate jdbc) {
		return new Ledger(stores, jdbc);
	}

	/** Each store's statement run, every second, fired once per store however many instances run. */
	@Bean
	Schedule statementRun() {
		return Schedule.cron("statement-run", "* * * * * *",
				(tick, publisher) -> publisher.publish(new StatementDue(tick.store(), tick.scheduledAt())))
			.inEveryStore();
	}

	@Bean
	Statements statements(WaybillStores stores, JdbcTemplate jdbc) {
		return new Statements(stores, jdbc);
	}

	/** Creates each tenant's business tables, beside the Waybill tables its store has. */
	@Bean
	TenantTables tenantTables(DataSource dataSource, WaybillStores stores) {
		return new TenantTables(new JdbcTemplate(dataSource), stores);
	}

	/** The tenants' business tables, and every store's statements (the default store has its run too). */
	static final class TenantTables {

		TenantTables(JdbcTemplate jdbc, WaybillStores stores) {
			stores.all().forEach((store) -> {
				jdbc.execute("CREATE TABLE IF NOT EXISTS " + store.schema()
						+ ".statements (tenant text NOT NULL, period timestamptz NOT NULL, PRIMARY KEY (tenant, period))");
				if (!store.name().equals(WaybillStore.DEFAULT_NAME)) {
					jdbc.execute("CREATE TABLE IF NOT EXISTS " + store.schema()
							+ ".invoices (id uuid PRIMARY KEY, cents bigint NOT NULL)");
					jdbc.execute("CREATE TABLE IF NOT EXISTS " + store.schema()
							+ ".ledger (invoice_id uuid PRIMARY KEY, cents bigint NOT NULL)");
				}
			});
		}

	}

}
