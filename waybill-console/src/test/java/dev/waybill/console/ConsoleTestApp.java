package dev.waybill.console;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.store.StoreResolver;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * A real application for the console tests: a servlet web server on a random port with Actuator,
 * Waybill on {@link TestPostgres} (a schema of its own) and {@link TestRabbit} (a queue of its
 * own), and one consumer whose handler fails while {@link #failing} is set. The outbox gives a
 * scope up after one attempt and the inbox a message after one failure, so dead scopes and
 * error-queue messages appear at once. Besides the default store it has the store
 * {@value #TENANT} (a schema beside the default one), which {@link #publishTo} publishes to.
 */
final class ConsoleTestApp implements AutoCloseable {

	/** Published with no queue bound to its exchange: unroutable, so its scope dies. */
	@MessageType(ConsoleTestApp.UNROUTABLE_TYPE)
	record Unroutable(String note) {
	}

	/** Unroutable too, to an exchange of its own. */
	@MessageType(ConsoleTestApp.TENANT_UNROUTABLE_TYPE)
	record TenantUnroutable(String note) {
	}

	@MessageType(ConsoleTestApp.ORDER_TYPE)
	record Order(String id, String mode) {
	}

	static final String UNROUTABLE_TYPE = "waybill-console-test.unroutable";

	static final String ORDER_TYPE = "waybill-console-test.order";

	static final String TENANT_UNROUTABLE_TYPE = "waybill-console-test.tenant-unroutable";

	static final String TENANT = "tenant";

	/** The store the current thread publishes to, for the application's StoreResolver. */
	static final ThreadLocal<String> store = ThreadLocal.withInitial(() -> "default");

	static final AtomicBoolean failing = new AtomicBoolean(true);

	static final List<String> handled = new CopyOnWriteArrayList<>();

	final TestSchema schema;

	final String queue;

	final ConfigurableApplicationContext context;

	private final List<String> extraQueues = new ArrayList<>();

	private ConsoleTestApp(TestSchema schema, String queue, ConfigurableApplicationContext context) {
		this.schema = schema;
		this.queue = queue;
		this.context = context;
	}

	static ConsoleTestApp start(String name, boolean writeEnabled) {
		failing.set(true);
		handled.clear();
		TestSchema schema = TestSchema.create(name);
		String queue = "waybill-console-test." + name + "." + UUID.randomUUID().toString().substring(0, 8);
		TestPostgres postgres = TestPostgres.get();
		TestRabbit rabbit = TestRabbit.get();
		try {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(Config.class)
				.web(WebApplicationType.SERVLET)
				.properties("server.port=0", "spring.main.banner-mode=off", "spring.datasource.url=" + postgres.url(),
						"spring.datasource.username=" + postgres.user(),
						"spring.datasource.password=" + postgres.password(),
						"spring.datasource.hikari.maximum-pool-size=6", "waybill.schema=" + schema.name(),
						"spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
						"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
						"waybill.outbox.relay.poll-interval=200ms", "waybill.outbox.retry.max-attempts=1",
						"waybill.inbox.retry.max-attempts=1", "management.endpoints.web.exposure.include=health,waybill",
						"waybill.admin.write-enabled=" + writeEnabled, "logging.level.dev.waybill.outbox.AdminAudit=INFO", "console.test.queue=" + queue,
						"waybill.stores." + TENANT + ".schema=" + schema.name() + "_" + TENANT)
				.run();
			return new ConsoleTestApp(schema, queue, context);
		}
		catch (RuntimeException ex) {
			schema.execute("DROP SCHEMA IF EXISTS " + schema.name() + "_" + TENANT + " CASCADE");
			schema.close();
			throw ex;
		}
	}

	String baseUrl() {
		int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		return "http://127.0.0.1:" + port;
	}

	String errorQueue() {
		return this.queue + "_error";
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	/** Publishes through the outbox, in a transaction, and returns the message id. */
	UUID publish(Object message) {
		TransactionTemplate transaction = new TransactionTemplate(bean(PlatformTransactionManager.class));
		return transaction.execute((status) -> bean(OutboxPublisher.class).publish(message));
	}

	/** Publishes to a store through the outbox, in a transaction, and returns the message id. */
	UUID publishTo(String storeName, Object message) {
		store.set(storeName);
		try {
			return publish(message);
		}
		finally {
			store.remove();
		}
	}

	/** Returns the ids of the dead scopes, oldest first. */
	List<UUID> deadScopes() {
		return deadScopes(this.schema.name());
	}

	/** Returns the ids of the dead scopes of the tenant store, oldest first. */
	List<UUID> tenantDeadScopes() {
		return deadScopes(this.schema.name() + "_" + TENANT);
	}

	private List<UUID> deadScopes(String schemaName) {
		return new JdbcTemplate(this.schema.dataSource()).queryForList(
				"SELECT id FROM " + schemaName + ".outbox_state WHERE status = 'dead' ORDER BY created_at", UUID.class);
	}

	/** The depth of a queue, read with a passive declare. */
	long depth(String name) throws Exception {
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			return channel.queueDeclarePassive(name).getMessageCount();
		}
	}

	/** Puts a message straight into the error queue, as the inbox would after a failure. */
	void putInErrorQueue(UUID messageId) throws Exception {
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.basicPublish("", errorQueue(), new com.rabbitmq.client.AMQP.BasicProperties.Builder()
				.messageId(messageId.toString())
				.type(ORDER_TYPE)
				.contentType("application/json")
				.build(), "{\"id\":\"o-x\",\"mode\":\"pay\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
		}
	}

	/** Empties the error queue and lets the handler fail again, so each test starts clean. */
	void reset() throws Exception {
		failing.set(true);
		handled.clear();
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queuePurge(errorQueue());
		}
		this.schema.execute("DELETE FROM " + this.schema.name() + ".outbox_state WHERE status = 'dead' "
				+ "OR status = 'pending' AND next_attempt_at > now() + interval '1 hour'"); // published for later
		this.schema.execute("DELETE FROM " + this.schema.name() + "_" + TENANT + ".outbox_state");
	}

	/** Declares a queue bound to the unroutable type's exchange, so a redriven dead scope gets through. */
	String bindQueueToUnroutable() throws Exception {
		return bindQueueTo(UNROUTABLE_TYPE);
	}

	/** Declares a queue bound to an exchange, so a redriven dead scope to it gets through. */
	String bindQueueTo(String exchange) throws Exception {
		String name = this.queue + ".catch-all." + exchange;
		try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
			channel.queueDeclare(name, false, false, false, null);
			channel.queueBind(name, exchange, "#");
			channel.queueBind(name, exchange, "");
		}
		this.extraQueues.add(name);
		return name;
	}

	@Override
	public void close() throws Exception {
		try {
			this.context.close();
		}
		finally {
			try (Connection connection = TestRabbit.get().connect(); Channel channel = connection.createChannel()) {
				channel.queueDelete(this.queue);
				channel.queueDelete(errorQueue());
				for (String extra : this.extraQueues) {
					channel.queueDelete(extra);
				}
			}
			finally {
				this.schema.execute("DROP SCHEMA IF EXISTS " + this.schema.name() + "_" + TENANT + " CASCADE");
				this.schema.close();
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		@Bean
		StoreResolver storeResolver() {
			return store::get;
		}

		@Bean
		ConsumerRegistry consumerRegistry(org.springframework.core.env.Environment environment) {
			ReceiveEndpoint consumer = ReceiveEndpoint.on(environment.getRequiredProperty("console.test.queue"))
				.withConcurrency(1)
				.withPrefetch(1)
				.handle(Order.class, (order, context) -> {
					handled.add(context.messageId().toString());
					if (failing.get()) {
						throw new IllegalStateException("card declined for order " + order.id());
					}
				});
			return ConsumerRegistry.ofEndpoints(List.of(consumer));
		}

	}

}
