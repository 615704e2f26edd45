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
			"orders.payment-captured_error");

	/** The samples' exchanges: their message types. */
	static final List<String> EXCHANGES = List.of(OrderPlaced.TYPE, CustomerRegistered.TYPE, PaymentCaptured.TYPE);

	private static final Pattern DATABASE = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]*)(.*)$");

	private final String database;

	private final String url;

	private SampleInfrastructure(String database, String url) {
		this.database = database;
		this.url = url;
	}

	/**
	 * Creates a database of its own and clears the samples' queues and exchanges.
	 * @param name what the database is for, a lowercase word
	 * @return the infrastructure
	 */
	public static SampleInfrastructure create(String name) {
		TestPostgres postgres = TestPostgres.get();
		Matcher url = DATABASE.matcher(postgres.url());
		if (!url.matches()) {
			throw new IllegalStateException("Cannot tell the database in " + postgres.url());
		}
		String database = "samples_" + name + "_" + UUID.randomUUID().toString().substring(0, 8);
		execute("CREATE DATABASE " + database);
		deleteQueuesAndExchanges();
		return new SampleInfrastructure(database, url.group(1) + database + url.group(3));
	}

	/**
	 * Returns the arguments that point a sample service at this database and the test broker.
	 * @return {@code --name=value} arguments
	 */
	public List<String> arguments() {
		TestRabbit rabbit = TestRabbit.get();
		return List.of("--spring.datasource.url=" + this.url, "--spring.datasource.username=" + TestPostgres.get().user(),
				"--spring.datasource.password=" + TestPostgres.get().password(), "--spring.rabbitmq.host=" + rabbit.host(),
				"--spring.rabbitmq.port=" + rabbit.port(), "--spring.rabbitmq.virtual-host=" + rabbit.virtualHost(),
				"--spring.rabbitmq.username=" + rabbit.username(), "--spring.rabbitmq.password=" + rabbit.password());
	}

	@Override
	public void close() {
		deleteQueuesAndExchanges();
		execute("DROP DATABASE IF EXISTS " + this.database + " WITH (FORCE)");
	}

	private static void execute(String sql) {
		try (Connection connection = TestPostgres.get().connect(); Statement statement = connection.createStatement()) {
			statement.execute(sql.toLowerCase(Locale.ROOT));
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " failed on " + TestPostgres.get() + ": " + ex.getMessage(), ex);
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
