package dev.waybill.inbox;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds inbox's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.inbox.internal..} packages (or are package-private), and API signatures do not make users
 * import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			// What a consumer writes: the annotation, the handler, its context and the headers Waybill
			// puts on faulted messages.
			"dev.waybill.inbox.observation.DefaultInboxProcessObservationConvention",
			"dev.waybill.inbox.observation.InboxProcessContext",
			"dev.waybill.inbox.observation.InboxProcessObservationConvention",
			"dev.waybill.inbox.InboxEntry",
			"dev.waybill.inbox.InboxLookup",
			"dev.waybill.inbox.StoreInboxLookups",
			"dev.waybill.inbox.EndpointBinding",
			"dev.waybill.inbox.EndpointRetry",
			"dev.waybill.inbox.ReceiveEndpoint",
			"dev.waybill.inbox.autoconfigure.EndpointProperties",
			"dev.waybill.inbox.Consumer",
			"dev.waybill.inbox.Fault",
			"dev.waybill.inbox.MessageHandler",
			"dev.waybill.inbox.MessageContext",
			"dev.waybill.inbox.InboxHeaders",
			// The consumer as registered (also for registering one by hand), and what an
			// InboxListener bean hears: the delivery and its outcome.
			"dev.waybill.inbox.ConsumerRegistration",
			"dev.waybill.inbox.InboundMessage",
			"dev.waybill.inbox.InboxListener",
			"dev.waybill.inbox.InboxOutcome",
			// The contract a transport's receive endpoint works against.
			"dev.waybill.inbox.spi.ConsumerRegistry",
			"dev.waybill.inbox.spi.DeliveryProcessor",
			"dev.waybill.inbox.spi.DeliveryResult",
			"dev.waybill.inbox.spi.FaultEvents",
			"dev.waybill.inbox.spi.ForwardedHeaders",
			"dev.waybill.inbox.spi.InboxDelivery",
			"dev.waybill.inbox.spi.UnrecordableDeliveryException",
			// Operations: clearing a consumer's fault on a message.
			"dev.waybill.inbox.InboxAdmin",
			// Spring Boot auto-configuration and the properties bound from waybill.inbox.*.
			"dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration",
			"dev.waybill.inbox.autoconfigure.WaybillInboxMetricsAutoConfiguration",
			"dev.waybill.inbox.autoconfigure.WaybillInboxProperties");

	ApiSurfaceTests() {
		super(MessageHandler.class, API);
	}

}
