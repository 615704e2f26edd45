package dev.waybill.samples.demo;

import java.util.Arrays;
import java.util.List;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.waybill.outbox.rabbit.test.TestRabbit;

/**
 * What the end-to-end tests read besides the services' databases: the test broker's queues, and
 * the details of a service's relay health.
 */
final class TestBroker {

	/** The Spring bean name of Waybill's health contributor in each service. */
	private static final String WAYBILL_HEALTH = "waybillHealthContributor";

	private TestBroker() {
	}

	/**
	 * Returns the address of the tests' RabbitMQ.
	 * @return the address
	 */
	static BrokerAddress address() {
		TestRabbit rabbit = TestRabbit.get();
		return new BrokerAddress(rabbit.host(), rabbit.port(), rabbit.username(), rabbit.password(), rabbit.virtualHost());
	}

	/**
	 * Returns one detail of the relay health component of both services of a pair, the order
	 * service's first.
	 * @param services the order and billing services
	 * @param detail e.g. {@code wakeUps} or {@code listening}
	 * @return its values; {@literal null} where a component does not show it
	 */
	static List<Object> relayDetails(DemoServices services, String detail) {
		return Arrays.asList(relayDetail(services.orderBean(WAYBILL_HEALTH, CompositeHealthContributor.class), detail),
				relayDetail(services.billingBean(WAYBILL_HEALTH, CompositeHealthContributor.class), detail));
	}

	private static Object relayDetail(CompositeHealthContributor waybill, String detail) {
		return ((HealthIndicator) waybill.getContributor("relay")).health().getDetails().get(detail);
	}

}
