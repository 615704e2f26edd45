package dev.waybill.integration.inbox;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

/**
 * The consuming service of the inbox tests: a billing handler whose behaviour each order's mode
 * chooses, recording its effect as a row in {@code payments}.
 */
final class Billing {

	static final String QUEUE = "waybill-test.inbox.billing";

	static final String ORDER_TYPE = "waybill-test.inbox.order";

	static final String PAYMENT_TYPE = "waybill-test.inbox.payment";

	/** Handler attempts per order id, across redeliveries. */
	static final Map<UUID, AtomicInteger> attempts = new ConcurrentHashMap<>();

	/** The redelivery count the handler saw when it succeeded, per order id. */
	static final Map<UUID, Integer> redeliveryCountOnSuccess = new ConcurrentHashMap<>();

	/** Released by tests that hold "slow" handlers inside their transaction. */
	static volatile CountDownLatch slowGate = new CountDownLatch(0);

	private Billing() {
	}

	static void reset() {
		attempts.clear();
		redeliveryCountOnSuccess.clear();
		slowGate = new CountDownLatch(0);
	}

	@MessageType(ORDER_TYPE)
	record Order(UUID id, String mode) {
	}

	@MessageType(PAYMENT_TYPE)
	record PaymentCaptured(UUID orderId) {
	}

	@Consumer(queue = QUEUE, concurrency = 2, prefetch = 4)
	static class BillingHandler implements MessageHandler<Order> {

		private final JdbcTemplate jdbc;

		private final String schema;

		BillingHandler(JdbcTemplate jdbc, String schema) {
			this.jdbc = jdbc;
			this.schema = schema;
		}

		@Override
		public void handle(Order order, MessageContext context) throws Exception {
			int attempt = attempts.computeIfAbsent(order.id(), (id) -> new AtomicInteger()).incrementAndGet();
			this.jdbc.update("INSERT INTO " + this.schema + ".payments (order_id, mode) VALUES (?, ?)", order.id(), order.mode());
			switch (order.mode()) {
				case "flaky" -> {
					if (attempt <= 2) {
						throw new IllegalStateException("card service timed out (attempt " + attempt + ")");
					}
				}
				case "fail" -> throw new IllegalStateException("card declined for " + order.id());
				case "publish" -> context.publish(new PaymentCaptured(order.id()));
				case "publish-then-fail" -> {
					context.publish(new PaymentCaptured(order.id()));
					throw new IllegalStateException("failed after publishing");
				}
				case "slow" -> slowGate.await();
				case "block" -> {
					if (Boolean.getBoolean("waybill.test.block")) {
						System.out.println("HANDLING " + order.id());
						System.out.flush();
						new CountDownLatch(1).await(); // until the process is killed
					}
				}
				default -> {
				}
			}
			redeliveryCountOnSuccess.put(order.id(), context.redeliveryCount());
		}

	}

}
