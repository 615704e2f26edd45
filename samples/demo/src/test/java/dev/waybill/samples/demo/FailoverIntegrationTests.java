package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.test.PrivatePostgres;
import dev.waybill.outbox.test.ReplicatedPostgres;
import dev.waybill.outbox.test.ReplicatedPostgres.Replication;
import dev.waybill.samples.billing.OrderPlacedHandler;
import dev.waybill.samples.messages.PaymentMethod;
import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The order and billing services, two instances of each, on a primary with a synchronous streaming
 * standby of the test's own, reached through a multi-host JDBC URL with
 * {@code targetServerType=primary}: under a stream of orders the primary is stopped as a crash
 * stops it and the standby promoted. Relays, {@code LISTEN} connections (each relay's health says
 * it listens again), consumers and retention find the new primary without a restart; every order the new primary holds is billed exactly
 * once, none lands in the error queue, and the time from the crash to the first order placed
 * after it being billed is printed and bounded.
 */
class FailoverIntegrationTests {

	private static final int ORDERS = 400;

	private static final Duration PLACING = Duration.ofSeconds(20);

	/**
	 * From the crash to an order placed after it billed: the promotion, the pool's replacing its
	 * broken connections and a relay's next claim, with room for a loaded machine.
	 */
	private static final Duration RESUME_BOUND = Duration.ofSeconds(30);

	@Test
	void afterThePrimaryFailsOverToItsStandbyEveryOrderTheNewPrimaryHoldsIsBilledOnce() throws Exception {
		try (ReplicatedPostgres servers = ReplicatedPostgres.start("failover", Replication.SYNCHRONOUS);
				SampleInfrastructure infrastructure = SampleInfrastructure.create("failover",
						servers.database(PrivatePostgres.DATABASE))) {
			List<String> arguments = new ArrayList<>(infrastructure.arguments());
			arguments.addAll(List.of("--billing.first-attempt-failure-fraction=0",
					// An order placed while the primary is away waits for a connection this long at most.
					"--spring.datasource.hikari.connection-timeout=5000",
					// Copies requeued while the database was away must still find their inbox rows;
					// retention purges what completed before the crash after it.
					"--waybill.inbox.duplicate-detection-window=15s", "--waybill.retention.completed-after=15s"));
			ExecutorService threads = Executors.newFixedThreadPool(5);
			try (DemoServices first = DemoServices.start(arguments); DemoServices second = DemoServices.start(arguments)) {
				JdbcTemplate verifier = first.orderDatabase();
				Future<OrderLoad.Placements> load = threads.submit(() -> OrderLoad
					.placeThroughFailures(List.of(first.orderPort(), second.orderPort()), ORDERS, PLACING, threads));
				// Mid-load: a quarter of the orders are billed.
				Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
					.until(() -> billed(verifier) >= ORDERS / 4);
				long purgedBefore = first.orderMonitor().purged() + second.orderMonitor().purged();
				long crashed = System.nanoTime();
				servers.failOver();
				long promoted = System.nanoTime();
				UUID afterFailover = placeUntilAccepted(first.orderPort());
				Awaitility.await().atMost(RESUME_BOUND).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
					.until(() -> OrderPayments.of(verifier, List.of(afterFailover), List.of()).billedOnce() == 1);
				Duration resumed = Duration.ofNanos(System.nanoTime() - crashed);
				OrderLoad.Placements placements = load.get(PLACING.toSeconds() + 90, TimeUnit.SECONDS);

				List<UUID> held = verifier.queryForList("SELECT id FROM orders.orders", UUID.class);
				Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
					.until(() -> OrderPayments.of(verifier, held, List.of()).billedOnce() == held.size());
				// Retention runs on the new primary too.
				Awaitility.await().atMost(Duration.ofSeconds(60))
					.until(() -> first.orderMonitor().purged() + second.orderMonitor().purged() > purgedBefore);
				// Every relay listens again, on the new primary.
				for (DemoServices services : List.of(first, second)) {
					Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> TestBroker.relayDetails(services, "listening"),
							(states) -> states.stream().allMatch(Boolean.TRUE::equals));
				}
				OrderPayments payments = OrderPayments.of(verifier, held, List.of());
				long faulted = first.billingMonitor().outcomes(InboxOutcome.FAULTED)
						+ second.billingMonitor().outcomes(InboxOutcome.FAULTED);
				long inErrorQueue = TestBroker.address()
					.messagesIn(OrderPlacedHandler.ERROR_QUEUE);
				System.out.printf("Failover: promoted %d ms after the crash; an order placed after it billed %d ms after "
						+ "the crash; %d placements accepted, %d failed, %d orders on the new primary; billed once %d, "
						+ "twice %d, unbilled %d; faulted %d, in %s %d%n",
						TimeUnit.NANOSECONDS.toMillis(promoted - crashed), resumed.toMillis(), placements.placed().size(),
						placements.failed(), held.size(), payments.billedOnce(), payments.billedTwice(), payments.unbilled(),
						faulted, OrderPlacedHandler.ERROR_QUEUE, inErrorQueue);
				// Synchronous replication: every placement the service acknowledged survived the crash.
				assertThat(held).containsAll(placements.placed()).contains(afterFailover);
				assertThat(payments.problems()).isEmpty();
				assertThat(faulted).as("faulted deliveries").isZero();
				assertThat(inErrorQueue).as("messages in " + OrderPlacedHandler.ERROR_QUEUE).isZero();
				assertThat(resumed).isLessThan(RESUME_BOUND);
			}
			finally {
				threads.shutdownNow();
				threads.awaitTermination(10, TimeUnit.SECONDS);
			}
		}
	}

	private static long billed(JdbcTemplate verifier) {
		return verifier.queryForObject("SELECT count(*) FROM billing.payments", Long.class);
	}

	/** Places one order, again and again while the service cannot reach a primary. */
	private static UUID placeUntilAccepted(int port) throws InterruptedException {
		OrderClient client = new OrderClient(port);
		long deadline = System.nanoTime() + RESUME_BOUND.toNanos();
		IOException last = null;
		while (System.nanoTime() < deadline) {
			try {
				return client.place("after-failover", 1_000, PaymentMethod.CARD);
			}
			catch (IOException ex) {
				last = ex;
				TimeUnit.MILLISECONDS.sleep(100); // the pace of the retries, not a wait for a condition
			}
		}
		throw new AssertionError("No order was accepted within " + RESUME_BOUND + " of the failover", last);
	}

}
