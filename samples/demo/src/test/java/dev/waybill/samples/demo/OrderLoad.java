package dev.waybill.samples.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.waybill.samples.messages.PaymentMethod;

/**
 * A steady stream of orders over HTTP for the end-to-end tests: placed from 4 threads, spread
 * evenly over a span of time, and over the order service instances in turn.
 */
final class OrderLoad {

	private OrderLoad() {
	}

	/**
	 * Places the orders and returns once every placement returned.
	 * @param ports the HTTP ports of the order service instances, taken in turn
	 * @param orders how many orders
	 * @param over the span they are spread over
	 * @param threads where the 4 placing threads run
	 * @return the ids of the orders placed
	 * @throws Exception when a placement failed
	 */
	static List<UUID> place(List<Integer> ports, int orders, Duration over, ExecutorService threads) throws Exception {
		return place(ports, orders, over, threads, false).placed();
	}

	/**
	 * Places the orders, going on when a placement fails (the service may have lost its database
	 * for a while), and returns once every placement returned.
	 * @param ports the HTTP ports of the order service instances, taken in turn
	 * @param orders how many orders
	 * @param over the span they are spread over
	 * @param threads where the 4 placing threads run
	 * @return what was placed and how many placements failed
	 */
	static Placements placeThroughFailures(List<Integer> ports, int orders, Duration over, ExecutorService threads)
			throws Exception {
		return place(ports, orders, over, threads, true);
	}

	private static Placements place(List<Integer> ports, int orders, Duration over, ExecutorService threads,
			boolean goOnFailing) throws Exception {
		List<OrderClient> clients = ports.stream().map(OrderClient::new).toList();
		List<UUID> placed = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger failed = new AtomicInteger();
		long start = System.nanoTime();
		long spacing = over.toNanos() / orders;
		AtomicInteger next = new AtomicInteger();
		List<Future<?>> placing = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			placing.add(threads.submit(() -> {
				for (int n = next.getAndIncrement(); n < orders; n = next.getAndIncrement()) {
					long wait = start + n * spacing - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait); // the load's pace, not a wait for a condition
					}
					try {
						placed.add(clients.get(n % clients.size()).place("customer-" + (n % 40), 500 + n,
								(n % 3 == 0) ? PaymentMethod.INVOICE : PaymentMethod.CARD));
					}
					catch (IOException ex) {
						if (!goOnFailing) {
							throw ex;
						}
						failed.incrementAndGet();
					}
				}
				return null;
			}));
		}
		for (Future<?> task : placing) {
			task.get(over.toSeconds() + 60, TimeUnit.SECONDS);
		}
		return new Placements(List.copyOf(placed), failed.get());
	}

	/**
	 * What a load placed.
	 * @param placed the ids of the orders whose placement succeeded
	 * @param failed how many placements failed
	 */
	record Placements(List<UUID> placed, int failed) {
	}

}
