package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.test.TestPgBouncer;
import dev.waybill.samples.billing.OrderPlacedHandler;
import dev.waybill.samples.test.SampleInfrastructure;

/**
 * The order and billing services, two instances of each, with every database connection through a
 * real PgBouncer in {@code pool_mode = transaction} with a small pool: relays, consumers,
 * consumer outboxes, retention (both instances of each run it) and the schema migration all go
 * through the pooler. Once with the relays' {@code LISTEN} connection straight to PostgreSQL
 * ({@code waybill.notifications.url}), once with none, where the start-up check makes them poll.
 * Every order is billed exactly once either way.
 */
class PooledDatabaseIntegrationTests {

	private static final int ORDERS = 200;

	private static final Duration PLACING = Duration.ofSeconds(8);

	@Test
	void throughATransactionPoolerWithADirectListenConnectionEveryOrderIsBilledOnce() throws Exception {
		run(true);
	}

	@Test
	void throughATransactionPoolerWithoutAListenConnectionTheRelaysPollAndEveryOrderIsBilledOnce() throws Exception {
		run(false);
	}

	private static void run(boolean directListenConnection) throws Exception {
		try (SampleInfrastructure infrastructure = SampleInfrastructure.create("pooled");
				TestPgBouncer pooler = TestPgBouncer.start(6)) {
			List<String> arguments = new ArrayList<>();
			String directUrl = null;
			for (String argument : infrastructure.arguments()) {
				if (argument.startsWith("--spring.datasource.url=")) {
					directUrl = argument.substring("--spring.datasource.url=".length());
					arguments.add("--spring.datasource.url=" + pooler.url(database(directUrl)));
				}
				else {
					arguments.add(argument);
				}
			}
			if (directListenConnection) {
				arguments.add("--waybill.notifications.url=" + directUrl);
			}
			arguments.add("--billing.first-attempt-failure-fraction=0");
			try (DemoServices first = DemoServices.start(arguments); DemoServices second = DemoServices.start(arguments)) {
				// The relay's health says how other instances' commits wake it.
				String expected = directListenConnection ? "listen" : "poll";
				for (DemoServices services : List.of(first, second)) {
					Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> TestBroker.relayDetails(services, "wakeUps"),
							(modes) -> modes.stream().allMatch(expected::equals));
				}
				ExecutorService threads = Executors.newFixedThreadPool(4);
				List<UUID> orders;
				try {
					orders = OrderLoad.place(List.of(first.orderPort(), second.orderPort()), ORDERS, PLACING, threads);
				}
				finally {
					threads.shutdownNow();
					threads.awaitTermination(10, TimeUnit.SECONDS);
				}
				JdbcTemplate verifier = first.orderDatabase();
				Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
					.until(() -> OrderPayments.of(verifier, orders, List.of()).billedOnce() == ORDERS);
				// Both services purge what they completed, on both instances, through the pooler.
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> first.orderMonitor().purged()
						+ second.orderMonitor().purged() > 0 && first.billingMonitor().purged() + second.billingMonitor().purged() > 0);
				OrderPayments payments = OrderPayments.of(verifier, orders, List.of());
				long faulted = first.billingMonitor().outcomes(InboxOutcome.FAULTED)
						+ second.billingMonitor().outcomes(InboxOutcome.FAULTED);
				long inErrorQueue = TestBroker.address()
					.messagesIn(OrderPlacedHandler.ERROR_QUEUE);
				System.out.printf("Through PgBouncer (%s): %d orders over 2 instances of each service; billed once %d, "
						+ "twice %d, unbilled %d; faulted %d, in %s %d%n", expected, ORDERS, payments.billedOnce(),
						payments.billedTwice(), payments.unbilled(), faulted, OrderPlacedHandler.ERROR_QUEUE, inErrorQueue);
				assertThat(payments.problems()).isEmpty();
				assertThat(payments.billedOnce()).isEqualTo(ORDERS);
				assertThat(faulted).as("faulted deliveries").isZero();
				assertThat(inErrorQueue).as("messages in " + OrderPlacedHandler.ERROR_QUEUE).isZero();
			}
		}
	}

	private static String database(String url) {
		String path = url.substring(url.indexOf("//") + 2);
		path = path.substring(path.indexOf('/') + 1);
		int query = path.indexOf('?');
		return (query < 0) ? path : path.substring(0, query);
	}

}
