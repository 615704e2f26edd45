package dev.waybill.samples.demo.tenants;

import java.sql.Timestamp;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.store.WaybillStore;
import dev.waybill.outbox.store.WaybillStores;

/**
 * Records each statement run in the store whose tick published it: the schedule fires in every
 * store, and Waybill handles each tick's message in the store it came from.
 */
@Consumer(queue = Statements.QUEUE)
class Statements implements MessageHandler<StatementDue> {

	static final String QUEUE = "tenants.statements";

	private final WaybillStores stores;

	private final JdbcTemplate jdbc;

	Statements(WaybillStores stores, JdbcTemplate jdbc) {
		this.stores = stores;
		this.jdbc = jdbc;
	}

	@Override
	public void handle(StatementDue due, MessageContext context) {
		WaybillStore store = this.stores.find(context.store()).orElseThrow();
		this.jdbc.update("INSERT INTO " + store.schema() + ".statements (tenant, period) VALUES (?, ?)", due.tenant(),
				Timestamp.from(due.period()));
	}

}
