package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.samples.billing.OrderPlacedHandler;
import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The end-to-end fault test: the order and billing services on the real PostgreSQL and
 * RabbitMQ, a stream of orders over HTTP, and the billing service's database connections terminated
 * again and again meanwhile (every backend it holds, busy or idle, every 300 to 1000 ms), with a
 * single attempt per message ({@code waybill.inbox.retry.max-attempts: 1}): a lost connection must
 * never count as the message's failure, so every order is billed exactly once and none lands in the
 * error queue.
 */
class ConnectionLossIntegrationTests {

	private static final int ORDERS = 300;

	/** Orders are placed over this long, so the terminations hit billing throughout. */
	private static final Duration PLACING = Duration.ofSeconds(15);

	private static final String BILLING = "waybill-e2e-billing-service";

	@Test
	void everyOrderIsBilledExactlyOnceWhileBillingsConnectionsAreTerminated() throws Exception {
		try (SampleInfrastructure infrastructure = SampleInfrastructure.create("connection_loss")) {
			List<String> arguments = new ArrayList<>();
			for (String argument : infrastructure.arguments()) {
				// Each service's connections carry its name, so only billing's are terminated.
				arguments.add(argument.startsWith("--spring.datasource.url=") ? argument
						+ (argument.contains("?") ? "&" : "?") + "ApplicationName=waybill-e2e-${spring.application.name}"
						: argument);
			}
			arguments.addAll(List.of("--billing.first-attempt-failure-fraction=0", "--waybill.inbox.retry.max-attempts=1",
					"--waybill.inbox.retry.immediate=0",
					// The demo keeps processed inbox rows 5 s, to show purging. Here a copy requeued
					// while the database was away can come back later than that on a loaded machine,
					// and a copy whose row was purged is new work by design (see "Duplicate-detection
					// window" in the README): keep the rows for the length of the test.
					"--waybill.inbox.duplicate-detection-window=10m", "--waybill.retention.completed-after=10m"));
			try (DemoServices services = DemoServices.start(arguments)) {
				// The checks read billing's tables through the order service's pool, whose connections live.
				JdbcTemplate verifier = services.orderDatabase();
				String database = verifier.queryForObject("SELECT current_database()", String.class);
				AtomicBoolean terminating = new AtomicBoolean(true);
				AtomicInteger terminated = new AtomicInteger();
				AtomicInteger rounds = new AtomicInteger();
				ExecutorService threads = Executors.newFixedThreadPool(5);
				try {
					Future<?> terminator = threads.submit(() -> {
						try (Connection connection = TestPostgres.get().connect()) {
							while (terminating.get()) {
								Thread.sleep(ThreadLocalRandom.current().nextLong(300, 1000));
								terminated.addAndGet(terminateBilling(connection, database));
								rounds.incrementAndGet();
							}
						}
						return null;
					});
					List<UUID> orders = OrderLoad.place(List.of(services.orderPort()), ORDERS, PLACING, threads);
					Thread.sleep(2000); // the last orders are billed under terminations too
					terminating.set(false);
					terminator.get(10, TimeUnit.SECONDS);

					assertThat(orders).hasSize(ORDERS);
					assertThat(rounds.get()).as("termination rounds").isGreaterThanOrEqualTo(15);
					assertThat(terminated.get()).as("billing backends terminated").isGreaterThanOrEqualTo(15);
					BrokerAddress broker = TestBroker.address();
					try {
						Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
							.until(() -> OrderPayments.of(verifier, orders, List.of()).billedOnce() == ORDERS
									|| services.billingMonitor().outcomes(InboxOutcome.FAULTED) > 0);
					}
					catch (ConditionTimeoutException ex) {
						throw new AssertionError("Not every order was billed: " + OrderPayments.of(verifier, orders, List.of())
								+ "; order outbox " + services.orderOutboxStats()
								+ "; billing deliveries processed " + services.billingMonitor().outcomes(InboxOutcome.PROCESSED)
								+ ", duplicates " + services.billingMonitor().outcomes(InboxOutcome.DUPLICATE)
								+ ", retries " + services.billingMonitor().outcomes(InboxOutcome.RETRY_SCHEDULED)
								+ "; waiting in " + OrderPlacedHandler.QUEUE + " " + broker.messagesIn(OrderPlacedHandler.QUEUE),
								ex);
					}
					OrderPayments payments = OrderPayments.of(verifier, orders, List.of());
					long inErrorQueue = broker.messagesIn(OrderPlacedHandler.ERROR_QUEUE);
					System.out.printf("Connection loss: %d orders, %d rounds terminated %d billing backends; billed once "
							+ "%d, twice %d, unbilled %d; faulted %d, in %s %d%n", ORDERS, rounds.get(), terminated.get(),
							payments.billedOnce(), payments.billedTwice(), payments.unbilled(),
							services.billingMonitor().outcomes(InboxOutcome.FAULTED), OrderPlacedHandler.ERROR_QUEUE,
							inErrorQueue);
					assertThat(services.billingMonitor().outcomes(InboxOutcome.FAULTED)).as("faulted deliveries").isZero();
					assertThat(inErrorQueue).as("messages in " + OrderPlacedHandler.ERROR_QUEUE).isZero();
					assertThat(payments.problems()).isEmpty();
					assertThat(payments.billedOnce()).isEqualTo(ORDERS);
				}
				finally {
					terminating.set(false);
					threads.shutdownNow();
					threads.awaitTermination(10, TimeUnit.SECONDS);
				}
			}
		}
	}

	/**
	 * Terminates every backend the billing service holds in the test's database.
	 * @return how many
	 */
	private static int terminateBilling(Connection connection, String database) throws SQLException {
		try (PreparedStatement terminate = connection.prepareStatement("SELECT count(*) FILTER (WHERE "
				+ "pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = ? AND application_name = ?")) {
			terminate.setString(1, database);
			terminate.setString(2, BILLING);
			try (ResultSet result = terminate.executeQuery()) {
				result.next();
				return result.getInt(1);
			}
		}
	}

}
