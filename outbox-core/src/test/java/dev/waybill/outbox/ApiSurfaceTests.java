package dev.waybill.outbox;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds outbox-core's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.outbox.internal..} packages (or are package-private), and API signatures do not
 * make users import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			// What an application writes against: the annotations, the publisher, its options, the
			// admin and its figures, and the exceptions a publish may throw.
			"dev.waybill.outbox.AdminAudit",
			"dev.waybill.outbox.MessagePreview",
			"dev.waybill.outbox.ScopeDetails",
			"dev.waybill.outbox.ScopePage",
			"dev.waybill.outbox.ScopeStatus",
			"dev.waybill.outbox.ScopeSummary",
			"dev.waybill.outbox.InvalidMessageException",
			"dev.waybill.outbox.MessageType",
			"dev.waybill.outbox.Outbox",
			"dev.waybill.outbox.OutboxAdmin",
			"dev.waybill.outbox.OutboxFullException",
			"dev.waybill.outbox.OutboxPublisher",
			"dev.waybill.outbox.OutboxStats",
			"dev.waybill.outbox.PublishOptions",
			"dev.waybill.outbox.RetryPolicy",
			"dev.waybill.outbox.ScheduledMessage",
			// Lifecycle phases to order an application's own SmartLifecycle beans against Waybill's,
			// and the thread source an application may replace.
			"dev.waybill.outbox.WaybillPhases",
			"dev.waybill.outbox.WaybillThreads",
			// The relay's events, for an application's listener beans.
			"dev.waybill.outbox.autoconfigure.observation.WaybillObservationProperties",
			"dev.waybill.outbox.observation.DefaultOutboxPublishObservationConvention",
			"dev.waybill.outbox.observation.DefaultRelayPublishObservationConvention",
			"dev.waybill.outbox.observation.OutboxPublishContext",
			"dev.waybill.outbox.observation.OutboxPublishObservationConvention",
			"dev.waybill.outbox.observation.RelayPublishContext",
			"dev.waybill.outbox.observation.RelayPublishObservationConvention",
			"dev.waybill.outbox.relay.CircuitState",
			"dev.waybill.outbox.relay.DeadScopePolicy",
			"dev.waybill.outbox.relay.RelayListener",
			"dev.waybill.outbox.store.StoreAdmins", "dev.waybill.outbox.store.StoreResolver",
			"dev.waybill.outbox.store.UnknownStoreException",
			"dev.waybill.outbox.store.WaybillStore", "dev.waybill.outbox.store.WaybillStores",
			// Extension points: another transport, serializer, message factory or store, and the
			// types they exchange.
			"dev.waybill.outbox.spi.ClaimedScope",
			"dev.waybill.outbox.spi.ConnectionOutboxWriter",
			"dev.waybill.outbox.spi.ConsumerOutbox",
			"dev.waybill.outbox.spi.KeysInFlight",
			"dev.waybill.outbox.spi.MessageSerializer",
			"dev.waybill.outbox.spi.OutboxMessage",
			"dev.waybill.outbox.spi.OutboxMessageFactory",
			"dev.waybill.outbox.spi.OutboxScope",
			"dev.waybill.outbox.spi.OutboxStore",
			"dev.waybill.outbox.spi.OutboxWriter",
			"dev.waybill.outbox.spi.Transport",
			"dev.waybill.outbox.spi.TransportChannel",
			"dev.waybill.outbox.spi.TransportException",
			// Spring Boot auto-configuration (public by Boot's convention, named in exclusions and
			// ordering) and the classes bound from waybill.*.
			"dev.waybill.outbox.autoconfigure.CircuitBreakerProperties",
			"dev.waybill.outbox.autoconfigure.NotificationProperties",
			"dev.waybill.outbox.autoconfigure.OutboxProperties",
			"dev.waybill.outbox.autoconfigure.StoreProperties",
			"dev.waybill.outbox.autoconfigure.WaybillNotificationsDataSource",
			"dev.waybill.outbox.autoconfigure.RelayProperties",
			"dev.waybill.outbox.autoconfigure.RetrySettings",
			"dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration",
			"dev.waybill.outbox.autoconfigure.WaybillMetricsAutoConfiguration",
			"dev.waybill.outbox.autoconfigure.WaybillProperties",
			"dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration",
			"dev.waybill.outbox.autoconfigure.health.WaybillHealthContributorAutoConfiguration",
			"dev.waybill.outbox.autoconfigure.health.WaybillHealthProperties");

	ApiSurfaceTests() {
		super(OutboxPublisher.class, API);
	}

}
