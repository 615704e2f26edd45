package dev.waybill.outbox.rabbit.test;

import java.io.IOException;
import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.internal.ConsumerRegistry;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * A consuming service for the receive endpoint's integration tests: Waybill's relay and one
 * consumer endpoint, on a test schema and the test broker, and what a test leaves behind.
 */
public final class ConsumerService {

	private ConsumerService() {
	}

	/**
	 * A service whose consumer is {@code registration}, connected to the test broker directly.
	 * @param schema the service's schema
	 * @param registration its consumer
	 * @return the runner, to configure further
	 */
	public static ApplicationContextRunner runner(TestSchema schema, ConsumerRegistration<?> registration) {
		TestRabbit rabbit = TestRabbit.get();
		return runner(schema, registration, rabbit.host(), rabbit.port());
	}

	/**
	 * A service whose consumer is {@code registration}, connected to the test broker through
	 * {@code proxy}, so a test can cut it.
	 * @param schema the service's schema
	 * @param registration its consumer
	 * @param proxy the proxy to the test broker
	 * @return the runner, to configure further
	 */
	public static ApplicationContextRunner runner(TestSchema schema, ConsumerRegistration<?> registration,
			TcpProxy proxy) {
		return runner(schema, registration, proxy.host(), proxy.port());
	}

	private static ApplicationContextRunner runner(TestSchema schema, ConsumerRegistration<?> registration, String host,
			int port) {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withBean(ConsumerRegistry.class, () -> ConsumerRegistry.of(List.of(registration)))
			.withPropertyValues("waybill.rabbit.host=" + host, "waybill.rabbit.port=" + port,
					"waybill.rabbit.virtual-host=" + rabbit.virtualHost(), "waybill.rabbit.username=" + rabbit.username(),
					"waybill.rabbit.password=" + rabbit.password(), "waybill.outbox.relay.poll-interval=200ms");
	}

	/**
	 * Deletes a consumer queue and its error queue, when declared, then closes the topology and the
	 * schema; either may be {@literal null} (a set-up that failed).
	 * @param topology the test's topology
	 * @param schema the test's schema
	 * @param queue the consumer queue
	 */
	public static void tearDown(TestTopology topology, TestSchema schema, String queue) {
		if (topology != null) {
			for (String name : List.of(queue, queue + "_error")) {
				try {
					topology.channel().queueDelete(name);
				}
				catch (IOException | RuntimeException ex) {
					// not declared
				}
			}
			topology.close();
		}
		if (schema != null) {
			schema.close();
		}
	}

}
