package dev.waybill.samples.test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.rabbitmq.client.Channel;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.test.context.DynamicPropertyRegistry;

import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.samples.messages.CustomerRegistered;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentCaptured;

/**
 * The real PostgreSQL and RabbitMQ of the tests ({@link TestPostgres}, {@link TestRabbit}) made
 * ready for the sample services, which use fixed schema, queue and exchange names: a database of
 * its own on the test server, dropped on {@link #close()}, and the samples' queues and exchanges
 * deleted before and after.
 */
public final class SampleInfrastructure implements AutoCloseable {

	/** The samples' queues, error queues included: the services' names. */
	static final List<String> QUEUES = List.of("billing.orders", "billing.orders_error", "billing.order-placed", "billing.order-placed_error",
			"billing.customer-registered", "billing.customer-registered_error", "orders.payment-captured",
			"orders.payment-captured_error", "tenants.ledger", "tenants.ledger_error");

	/** The samples' exchanges: their message types. */
	static final List<String> EXCHANGES = List.of(OrderPlaced.TYPE, CustomerRegistered.TYPE, PaymentCaptured.TYPE,
			"tenants.invoice-issued");

	private static final String DATABASE_PROPERTY = "samples.test.database";

	private static final Pattern DATABASE = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]*)(.*)$");

	private final TestPostgres server;

	private final String database;

	private final String url;

	private SampleInfrastructure(TestPostgres server, String database, String url) {
		this.server = server;
		this.database = database;
		this.url = url;
	}

	/**
	 * Creates a database of its own on the test server and clears the samples' queues and exchanges.
	 * @param name what the database is for, a lowercase word
	 * @return the infrastructure
	 */
	public static SampleInfrastructure create(String name) {
		return create(name, TestPostgres.get());
	}

	/**
	 * Creates a database of its own on a given server and clears the samples' queues and exchanges.
	 * @param name what the database is for, a lowercase word
	 * @param server a database of the server, through which the new one is created
	 * @return the infrastructure
	 */
	public static SampleInfrastructure create(String name, TestPostgres server) {
		Matcher url = DATABASE.matcher(server.url());
		if (!url.matches()) {
			throw new IllegalStateException("Cannot tell the database in " + server.url());
		}
		String database = "samples_" + name + "_" + UUID.randomUUID().toString().substring(0, 8);
		execute(server, "CREATE DATABASE " + database);
		deleteQueuesAndExchanges();
		return new SampleInfrastructure(server, database, url.group(1) + database + url.group(3));
	}

	/**
	 * Creates a database of its own for a {@code @SpringBootTest} that needs no broker (the
	 * harness's in-memory transport) and points the test's application at it; import
	 * {@link DropOnClose} into the test to drop the database when the application stops.
	 * @param registry the test's properties
	 * @param name what the database is for, a lowercase word
	 */
	public static void database(DynamicPropertyRegistry registry, String name) {
		TestPostgres postgres = TestPostgres.get();
		Matcher url = DATABASE.matcher(postgres.url());
		if (!url.matches()) {
			throw new IllegalStateException("Cannot tell the database in " + postgres.url());
		}
		String database = "samples_" + name + "_" + UUID.randomUUID().toString().substring(0, 8);
		execute(postgres, "CREATE DATABASE " + database);
		registry.add("spring.datasource.url", () -> url.group(1) + database + url.group(3));
		registry.add("spring.datasource.username", postgres::user);
		registry.add("spring.datasource.password", postgres::password);
		registry.add("spring.datasource.hikari.maximum-pool-size", () -> "6");
		registry.add(DATABASE_PROPERTY, () -> database);
	}

	/**
	 * Returns the arguments that point a sample service at this database and the test broker.
	 * @return {@code --name=value} arguments
	 */
	public List<String> arguments() {
		TestRabbit rabbit = TestRabbit.get();
		return List.of("--spring.datasource.url=" + this.url, "--spring.datasource.username=" + this.server.user(),
				"--spring.datasource.password=" + this.server.password(), "--spring.rabbitmq.host=" + rabbit.host(),
				"--spring.rabbitmq.port=" + rabbit.port(), "--spring.rabbitmq.virtual-host=" + rabbit.virtualHost(),
				"--spring.rabbitmq.username=" + rabbit.username(), "--spring.rabbitmq.password=" + rabbit.password());
	}

	@Override
	public void close() {
		deleteQueuesAndExchanges();
		execute(this.server, "DROP DATABASE IF EXISTS " + this.database + " WITH (FORCE)");
	}

	/**
	 * Drops the database {@link #database(DynamicPropertyRegistry, String)} created once everything
	 * else in the application stopped.
	 */
	public static final class DropOnClose implements SmartLifecycle {

		private final String database;

		private volatile boolean running;

		public DropOnClose(@Value("${" + DATABASE_PROPERTY + "}") String database) {
			this.database = database;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			execute(TestPostgres.get(), "DROP DATABASE IF EXISTS " + this.database + " WITH (FORCE)");
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WaybillPhases.LISTENER - 1; // after Waybill's relay and its notification listener
		}

	}

	private static void execute(TestPostgres server, String sql) {
		try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql.toLowerCase(Locale.ROOT));
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " failed on " + server + ": " + ex.getMessage(), ex);
		}
	}

	private static void deleteQueuesAndExchanges() {
		try (com.rabbitmq.client.Connection connection = TestRabbit.get().connect()) {
			Channel channel = connection.createChannel();
			for (String queue : QUEUES) {
				channel.queueDelete(queue);
			}
			for (String exchange : EXCHANGES) {
				channel.exchangeDelete(exchange);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not clear the samples' queues on " + TestRabbit.get() + ": "
					+ ex.getMessage(), ex);
		}
	}

}
