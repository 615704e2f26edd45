package dev.waybill.outbox.rabbit.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import com.rabbitmq.client.AMQP;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.inbox.spi.ConsumerRegistry;
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
	 * A service whose receive endpoint is {@code endpoint}, connected to the test broker directly.
	 * @param schema the service's schema
	 * @param endpoint its receive endpoint
	 * @return the runner, to configure further
	 */
	public static ApplicationContextRunner runner(TestSchema schema, ReceiveEndpoint endpoint) {
		TestRabbit rabbit = TestRabbit.get();
		return runner(schema, endpoint, rabbit.host(), rabbit.port());
	}

	/**
	 * A service whose receive endpoint is {@code endpoint}, connected to the test broker through
	 * {@code proxy}, so a test can cut it.
	 * @param schema the service's schema
	 * @param endpoint its receive endpoint
	 * @param proxy the proxy to the test broker
	 * @return the runner, to configure further
	 */
	public static ApplicationContextRunner runner(TestSchema schema, ReceiveEndpoint endpoint,
			TcpProxy proxy) {
		return runner(schema, List.of(endpoint), proxy);
	}

	/**
	 * A service whose receive endpoints are {@code endpoints}, connected to the test broker through
	 * {@code proxy}, so a test can cut it.
	 * @param schema the service's schema
	 * @param endpoints its receive endpoints
	 * @param proxy the proxy to the test broker
	 * @return the runner, to configure further
	 */
	public static ApplicationContextRunner runner(TestSchema schema, List<ReceiveEndpoint> endpoints,
			TcpProxy proxy) {
		return runner(schema, endpoints, proxy.host(), proxy.port());
	}

	private static ApplicationContextRunner runner(TestSchema schema, ReceiveEndpoint endpoint, String host,
			int port) {
		return runner(schema, List.of(endpoint), host, port);
	}

	private static ApplicationContextRunner runner(TestSchema schema, List<ReceiveEndpoint> endpoints,
			String host, int port) {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withBean(ConsumerRegistry.class, () -> ConsumerRegistry.ofEndpoints(endpoints))
			.withPropertyValues("spring.rabbitmq.host=" + host, "spring.rabbitmq.port=" + port,
					"spring.rabbitmq.virtual-host=" + rabbit.virtualHost(), "spring.rabbitmq.username=" + rabbit.username(),
					"spring.rabbitmq.password=" + rabbit.password(), "waybill.outbox.relay.poll-interval=200ms");
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

	/**
	 * Publishes {@code {"id": <new id>, "mode": mode}} as a message of {@code type} to the exchange
	 * of that name, as a sender other than Waybill would.
	 * @param topology the test's topology
	 * @param type the message type and exchange
	 * @param mode what the test's handler is to do with it
	 * @return the new id in the body
	 */
	public static UUID publishPing(TestTopology topology, String type, String mode) throws IOException {
		UUID id = UUID.randomUUID();
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
			.type(type)
			.contentType("application/json")
			.deliveryMode(2)
			.build();
		byte[] body = ("{\"id\":\"" + id + "\",\"mode\":\"" + mode + "\"}").getBytes(StandardCharsets.UTF_8);
		topology.channel().basicPublish(type, "", properties, body);
		return id;
	}

	/**
	 * Returns the ready messages of a queue.
	 * @param topology the test's topology
	 * @param queue the queue
	 * @return the count, -1 when the queue does not exist
	 */
	public static int readyMessages(TestTopology topology, String queue) {
		try {
			return topology.channel().queueDeclarePassive(queue).getMessageCount();
		}
		catch (IOException ex) {
			return -1;
		}
	}

	/**
	 * Returns how many messages a consumer processed, by its inbox rows.
	 * @param schema the service's schema
	 * @param consumer the consumer's id (its queue)
	 * @return the processed inbox rows
	 */
	public static int processed(TestSchema schema, String consumer) {
		return new JdbcTemplate(schema.dataSource()).queryForObject("SELECT count(*) FROM " + schema.name()
				+ ".inbox_state WHERE consumer_id = ? AND processed_at IS NOT NULL", Integer.class, consumer);
	}

}
