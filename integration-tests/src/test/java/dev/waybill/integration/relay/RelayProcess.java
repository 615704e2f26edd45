package dev.waybill.integration.relay;

import java.time.Duration;
import java.util.List;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.waybill.integration.support.ChildJvm;
import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestRelay;

/**
 * A relay in a process of its own, for the crash test to kill. Arguments: JDBC URL, user,
 * password, schema, AMQP host, port, lease in milliseconds, batch size.
 */
public final class RelayProcess {

	private RelayProcess() {
	}

	/**
	 * A process builder for a relay of the outbox tables in {@code schema} of the test database,
	 * publishing to the test broker; not started.
	 * @param schema the schema of the outbox tables
	 * @param lease how long its claims hold
	 * @param batchSize the most scopes one claim takes
	 * @return the builder
	 */
	public static ProcessBuilder builder(String schema, Duration lease, int batchSize) {
		TestPostgres postgres = TestPostgres.get();
		return ChildJvm.builder(RelayProcess.class, List.of(), postgres.url(), postgres.user(), postgres.password(),
				schema, TestRabbit.get().host(), String.valueOf(TestRabbit.get().port()), String.valueOf(lease.toMillis()),
				String.valueOf(batchSize));
	}

	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(4);
		HikariDataSource dataSource = new HikariDataSource(config);
		ConnectionFactory broker = new ConnectionFactory();
		broker.setHost(args[4]);
		broker.setPort(Integer.parseInt(args[5]));
		Transport transport = TestRabbit.transportOn(broker);
		TestRelay relay = TestOutbox.on(dataSource, OutboxTables.inSchema(args[3]))
			.relay(transport)
			.settings(1, Integer.parseInt(args[7]), Duration.ofMillis(Long.parseLong(args[6])), Duration.ofMillis(200),
					Duration.ofSeconds(5), RetryPolicy.defaults(), 3, Duration.ofSeconds(1))
			.build();
		relay.start();
		System.out.println("RELAY STARTED " + relay.id());
		System.out.flush();
		Thread.currentThread().join(); // until killed
	}

}
