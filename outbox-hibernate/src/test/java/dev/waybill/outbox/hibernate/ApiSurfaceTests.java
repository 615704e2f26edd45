package dev.waybill.outbox.hibernate;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds outbox-hibernate's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.outbox.hibernate.internal} (or are package-private), and API signatures do not
 * make users import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			// What an entity extends or implements to raise events.
			"dev.waybill.outbox.hibernate.AbstractOutboxAggregate",
			"dev.waybill.outbox.hibernate.OutboxEventSource",
			// Read-only mappings of Waybill's tables for applications that query them, and the naming
			// strategy that points them at the configured schema and tables.
			"dev.waybill.outbox.hibernate.jpa.InboxStateEntity",
			"dev.waybill.outbox.hibernate.jpa.OutboxMessageEntity",
			"dev.waybill.outbox.hibernate.jpa.OutboxStateEntity",
			"dev.waybill.outbox.hibernate.jpa.WaybillNamingStrategy",
			// Spring Boot auto-configuration.
			"dev.waybill.outbox.hibernate.autoconfigure.WaybillHibernateAutoConfiguration");

	ApiSurfaceTests() {
		super(AbstractOutboxAggregate.class, API);
	}

}
