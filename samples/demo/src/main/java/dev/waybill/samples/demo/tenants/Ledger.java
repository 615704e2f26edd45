package dev.waybill.samples.demo.tenants;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Enters each issued invoice in the ledger of the tenant it belongs to: Waybill handles the
 * message in that tenant's store, so the entry commits with the tenant's inbox row, once.
 */
@Consumer(queue = Ledger.QUEUE)
class Ledger implements MessageHandler<InvoiceIssued> {

	static final String QUEUE = "tenants.ledger";

	private final WaybillStores stores;

	private final JdbcTemplate jdbc;

	Ledger(WaybillStores stores, JdbcTemplate jdbc) {
		this.stores = stores;
		this.jdbc = jdbc;
	}

	@Override
	public void handle(InvoiceIssued invoice, MessageContext context) {
		WaybillStore store = this.stores.find(context.store()).orElseThrow();
		this.jdbc.update("INSERT INTO " + store.schema() + ".ledger (invoice_id, cents) VALUES (?, ?)", invoice.invoiceId(),
				invoice.cents());
	}

}
