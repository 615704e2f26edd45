package dev.waybill.outbox.rabbit;

import java.util.Set;

import dev.waybill.outbox.test.ApiSurfaceContract;

/**
 * Holds outbox-rabbit's public API to a reviewed list: implementation classes belong in
 * {@code dev.waybill.outbox.rabbit.internal..} packages (or are package-private), and API signatures do not make users
 * import them.
 */
class ApiSurfaceTests extends ApiSurfaceContract {

	/** Every public type outside the internal packages, each there because a user needs it. */
	static final Set<String> API = Set.of(
			// The AMQP header names Waybill sets, for consumers outside Waybill.
			"dev.waybill.outbox.rabbit.ErrorQueueException",
			"dev.waybill.outbox.rabbit.ErrorQueueInfo",
			"dev.waybill.outbox.rabbit.ErrorQueueMessage",
			"dev.waybill.outbox.rabbit.ErrorQueues",
			"dev.waybill.outbox.rabbit.RabbitTopology",
			"dev.waybill.outbox.rabbit.autoconfigure.TopologyProperties",
			"dev.waybill.outbox.rabbit.RabbitHeaders",
			// Spring Boot auto-configuration, the properties bound from waybill.rabbit.*, and the
			// customizer an application declares for what the properties do not cover.
			"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration",
			"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitConnectionFactoryCustomizer",
			"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration",
			"dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitProperties",
			"dev.waybill.outbox.rabbit.autoconfigure.health.WaybillRabbitHealthContributorAutoConfiguration");

	ApiSurfaceTests() {
		super(RabbitHeaders.class, API);
	}

}
