package dev.waybill.integration.relay;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;

/**
 * A service in a process of its own, for the crash test to kill: writer threads commit one
 * message per transaction, without end, and its relay publishes them by direct dispatch.
 * Arguments: JDBC URL, user, password, schema, AMQP host, port, lease in milliseconds, exchange.
 */
public final class DirectWriterProcess {

	private static final int WRITERS = 4;

	private DirectWriterProcess() {
	}

	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(WRITERS + 4);
		HikariDataSource dataSource = new HikariDataSource(config);
		ConnectionFactory broker = new ConnectionFactory();
		broker.setHost(args[4]);
		broker.setPort(Integer.parseInt(args[5]));
		Transport transport = TestRabbit.transportOn(broker);
		TestOutbox outbox = TestOutbox.builder(dataSource, OutboxTables.inSchema(args[3]))
			.sourceHost("direct-writer")
			.build();
		TestRelay relay = outbox.relay(transport)
			.settings(2, 100, Duration.ofMillis(Long.parseLong(args[6])), Duration.ofMillis(200), Duration.ofSeconds(5),
					RetryPolicy.defaults(), 3, Duration.ofSeconds(1))
			.build();
		outbox.enableDirectDispatch(relay);
		relay.start();
		OutboxPublisher publisher = outbox.publisher();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		String exchange = args[7];
		AtomicLong sequence = new AtomicLong();
		for (int i = 0; i < WRITERS; i++) {
			Thread writer = new Thread(() -> {
				while (true) {
					try {
						transactions.executeWithoutResult(
								(status) -> publisher.send(exchange, Map.of("n", sequence.incrementAndGet())));
					}
					catch (RuntimeException ex) {
						// keep writing: the test kills this process
					}
				}
			}, "writer-" + i);
			writer.start();
		}
		System.out.println("WRITING " + relay.id());
		System.out.flush();
		Thread.currentThread().join(); // until killed
	}

}
