package dev.waybill.samples.demo.tenants;

import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Issues a tenant's invoice: its row in the tenant's schema and the {@link InvoiceIssued} message,
 * in one transaction, which Waybill writes to the tenant's store (the resolver names it).
 */
class Invoicing {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final OutboxPublisher publisher;

	private final WaybillStores stores;

	Invoicing(JdbcTemplate jdbc, TransactionTemplate transactions, OutboxPublisher publisher, WaybillStores stores) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.publisher = publisher;
		this.stores = stores;
	}

	UUID issue(String tenant, long cents) {
		String schema = this.stores.find(tenant).orElseThrow().schema();
		return Tenant.as(tenant, () -> this.transactions.execute((status) -> {
			UUID invoice = UUID.randomUUID();
			this.jdbc.update("INSERT INTO " + schema + ".invoices (id, cents) VALUES (?, ?)", invoice, cents);
			this.publisher.publish(new InvoiceIssued(invoice, cents));
			return invoice;
		}));
	}

}
