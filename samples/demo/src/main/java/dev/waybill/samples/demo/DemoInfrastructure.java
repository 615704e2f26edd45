package dev.waybill.samples.demo;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * The PostgreSQL and the broker the demo runs on: the configured ones when
 * {@code spring.datasource.url} / {@code spring.rabbitmq.host} (or {@code spring.rabbitmq.addresses})
 * are set, as properties, arguments or environment variables; else an
 * embedded PostgreSQL and an in-memory AMQP broker on free ports, started side by side.
 */
final class DemoInfrastructure implements AutoCloseable {

	private final @Nullable EmbeddedPostgres postgres;

	private final @Nullable EmbeddedBroker broker;

	private final BrokerAddress brokerAddress;

	private DemoInfrastructure(@Nullable EmbeddedPostgres postgres, @Nullable EmbeddedBroker broker,
			BrokerAddress brokerAddress) {
		this.postgres = postgres;
		this.broker = broker;
		this.brokerAddress = brokerAddress;
	}

	/**
	 * Starts what is not configured and says on {@code out} what is used.
	 * @param environment the demo's environment (arguments, system properties, environment variables)
	 * @param out where to say it
	 * @return the infrastructure
	 * @throws Exception when an embedded part cannot start
	 */
	static DemoInfrastructure start(Environment environment, PrintStream out) throws Exception {
		String url = environment.getProperty("spring.datasource.url");
		boolean brokerConfigured = environment.containsProperty("spring.rabbitmq.host")
				|| environment.containsProperty("spring.rabbitmq.addresses");
		CompletableFuture<EmbeddedPostgres> postgres = (url != null) ? CompletableFuture.completedFuture(null)
				: CompletableFuture.supplyAsync(DemoInfrastructure::startPostgres);
		EmbeddedBroker broker = null;
		try {
			broker = brokerConfigured ? null : EmbeddedBroker.start();
			EmbeddedPostgres database = postgres.join();
			BrokerAddress address = (broker != null) ? new BrokerAddress("localhost", broker.port(), "guest", "guest", "/")
					: BrokerAddress.of(environment);
			out.println((database != null)
					? "PostgreSQL: started an embedded PostgreSQL on port " + database.getPort()
							+ " (no spring.datasource.url given)"
					: "PostgreSQL: " + url);
			out.println((broker != null)
					? "Broker:     started an in-memory AMQP 0-9-1 broker (Apache Qpid Broker-J) on port " + broker.port()
							+ " (no spring.rabbitmq.host given)"
					: "Broker:     " + address);
			return new DemoInfrastructure(database, broker, address);
		}
		catch (Exception | Error ex) {
			if (broker != null) {
				broker.close();
			}
			EmbeddedPostgres database = postgres.exceptionally((failure) -> null).join();
			if (database != null) {
				database.close();
			}
			throw ex;
		}
	}

	private static EmbeddedPostgres startPostgres() {
		try {
			return EmbeddedPostgres.builder().start();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start the embedded PostgreSQL: " + ex.getMessage()
					+ ". Give a database with --spring.datasource.url=jdbc:postgresql://host:5432/db instead.", ex);
		}
	}

	/**
	 * Returns the arguments that point both services at what was started; empty for what was
	 * configured, which the services read themselves.
	 * @return {@code --name=value} arguments
	 */
	List<String> serviceArguments() {
		List<String> arguments = new ArrayList<>();
		if (this.postgres != null) {
			arguments.add("--spring.datasource.url=" + this.postgres.getJdbcUrl("postgres", "postgres"));
			arguments.add("--spring.datasource.username=postgres");
			arguments.add("--spring.datasource.password=postgres");
		}
		if (this.broker != null) {
			arguments.add("--spring.rabbitmq.host=localhost");
			arguments.add("--spring.rabbitmq.port=" + this.broker.port());
			arguments.add("--spring.rabbitmq.username=guest");
			arguments.add("--spring.rabbitmq.password=guest");
			arguments.add("--spring.rabbitmq.virtual-host=/");
		}
		return arguments;
	}

	BrokerAddress brokerAddress() {
		return this.brokerAddress;
	}

	@Override
	public void close() throws Exception {
		try {
			if (this.broker != null) {
				this.broker.close();
			}
		}
		finally {
			if (this.postgres != null) {
				this.postgres.close();
			}
		}
	}

}
