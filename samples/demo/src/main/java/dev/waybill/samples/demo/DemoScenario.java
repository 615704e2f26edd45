package dev.waybill.samples.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.samples.billing.OrderPlacedHandler;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentMethod;

/**
 * The demo's scenario: place the orders from several threads through the HTTP API; once every
 * billable order is billed, make the relay publish some of them again; wait until billing has
 * suppressed every copy, the order service has recorded every payment, the unbillable order sits in
 * the error queue and, through its fault event, is marked {@code PAYMENT_FAILED} by the order
 * service, and the retention workers have purged completed rows; then check, from the
 * billing service's own table, that every billable order was billed exactly once. Prints a progress
 * line every second meanwhile.
 */
final class DemoScenario {

	private static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final DemoServices services;

	private final DemoOptions options;

	private final BrokerAddress broker;

	private final PrintStream out;

	private final AtomicInteger placed = new AtomicInteger();

	private final List<UUID> billable = new ArrayList<>();

	private final List<UUID> unbillable = new ArrayList<>();

	private final List<String> problems = new ArrayList<>();

	private long started;

	private long lastProgress;

	DemoScenario(DemoServices services, DemoOptions options, BrokerAddress broker, PrintStream out) {
		this.services = services;
		this.options = options;
		this.broker = broker;
		this.out = out;
	}

	DemoResult run() throws InterruptedException {
		this.started = System.nanoTime();
		long deadline = this.started + this.options.timeout().toNanos();
		this.out.printf(Locale.ROOT, "%nPlacing %,d orders from %d threads (%.0f%% fail their first billing attempt, "
				+ "1 is paid by BARTER, which billing cannot handle)%n", this.options.orders(), this.options.threads(),
				this.options.failureFraction() * 100);
		placeOrders(deadline);
		int republished = 0;
		if (waitFor("every billable order billed", () -> paidOrders() >= this.billable.size(), deadline)) {
			republished = new RelayCrashSimulation(this.services.orderDatabase(), this.services.billingDatabase())
				.publishAgain(this.options.duplicates());
			this.out.printf(Locale.ROOT, "Simulating a relay crash: %,d messages of the %d most recently billed orders "
					+ "are published a second time%n", republished, this.options.duplicates());
			int expected = republished;
			waitFor("every copy suppressed", () -> duplicates() >= expected, deadline);
			waitFor("the unbillable order in the error queue",
					() -> billing(InboxOutcome.FAULTED) >= this.unbillable.size(), deadline);
			waitFor("the unbillable order marked PAYMENT_FAILED by its fault event",
					() -> paymentFailedOrders() >= this.unbillable.size(), deadline);
			waitFor("completed rows purged", () -> purged() > 0, deadline);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - this.started);
		progress(true);
		return result(republished, elapsed);
	}

	private void placeOrders(long deadline) throws InterruptedException {
		OrderClient client = new OrderClient(this.services.orderPort());
		int unbillableAt = this.options.orders() / 2;
		List<UUID> billed = Collections.synchronizedList(new ArrayList<>());
		List<UUID> barter = Collections.synchronizedList(new ArrayList<>());
		List<String> failures = Collections.synchronizedList(new ArrayList<>());
		ExecutorService threads = Executors.newFixedThreadPool(this.options.threads());
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int i = 0; i < this.options.orders(); i++) {
				int n = i;
				tasks.add(threads.submit(() -> {
					PaymentMethod method = (n == unbillableAt) ? PaymentMethod.BARTER
							: (n % 3 == 0) ? PaymentMethod.INVOICE : PaymentMethod.CARD;
					try {
						UUID id = client.place("customer-" + (n % 40), 500 + (n * 37L) % 10_000, method);
						((method == PaymentMethod.BARTER) ? barter : billed).add(id);
						this.placed.incrementAndGet();
					}
					catch (Exception ex) {
						failures.add("order " + n + " was not placed: " + ex.getMessage());
					}
				}));
			}
			for (Future<?> task : tasks) {
				while (!task.isDone()) {
					progress(false);
					if (System.nanoTime() - deadline > 0) {
						failures.add("placing the orders took longer than " + this.options.timeout().toSeconds() + "s");
						return;
					}
					Thread.sleep(50);
				}
			}
		}
		finally {
			threads.shutdownNow();
			this.billable.addAll(billed);
			this.unbillable.addAll(barter);
			this.problems.addAll(failures.subList(0, Math.min(failures.size(), 5)));
		}
		this.out.printf(Locale.ROOT, "Placed %,d orders in %.1f s%n", this.placed.get(), seconds());
	}

	/**
	 * Waits for a condition, printing progress; records a problem when the deadline passes first.
	 * @return whether the condition holds
	 */
	private boolean waitFor(String what, BooleanSupplier condition, long deadline) throws InterruptedException {
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				this.problems.add("gave up waiting for " + what + " after " + this.options.timeout().toSeconds() + "s");
				return false;
			}
			progress(false);
			Thread.sleep(100);
		}
		return true;
	}

	private void progress(boolean force) {
		long now = System.nanoTime();
		if (!force && now - this.lastProgress < PROGRESS_EVERY_NANOS) {
			return;
		}
		this.lastProgress = now;
		this.out.printf(Locale.ROOT,
				"[%5.1fs] placed %,d | published %,d | billed %,d | retried %,d | in error %,d | duplicates %,d "
						+ "| paid %,d | purged %,d%n",
				seconds(), this.placed.get(), published(), billing(InboxOutcome.PROCESSED, OrderPlaced.TYPE),
				billing(InboxOutcome.RETRY_SCHEDULED), billing(InboxOutcome.FAULTED), duplicates(),
				this.services.orderMonitor().outcomes(InboxOutcome.PROCESSED), purged());
	}

	private DemoResult result(int republished, Duration elapsed) {
		List<String> problems = new ArrayList<>(this.problems);
		OrderPayments payments = OrderPayments.of(this.services.billingDatabase(), this.billable, this.unbillable);
		problems.addAll(payments.problems());
		long suppressed = duplicates();
		// More is fine: a consumer connection recovery also redelivers, and those copies are suppressed too.
		if (suppressed < republished) {
			problems.add(suppressed + " duplicates were suppressed, but " + republished + " messages were published twice");
		}
		long errorQueue = errorQueueDepth(problems);
		if (errorQueue < this.unbillable.size()) {
			problems.add(OrderPlacedHandler.ERROR_QUEUE + " holds " + errorQueue + " messages; expected the "
					+ this.unbillable.size() + " unbillable order(s)");
		}
		long dead = this.services.orderMonitor().deadLettered() + this.services.billingMonitor().deadLettered();
		if (dead > 0) {
			problems.add(dead + " messages were dead-lettered by a relay instead of delivered");
		}
		if (purged() == 0) {
			problems.add("the retention workers purged nothing");
		}
		return new DemoResult(this.placed.get(), this.unbillable.size(), published(),
				this.services.orderMonitor().outcomes(InboxOutcome.PROCESSED)
						+ this.services.billingMonitor().outcomes(InboxOutcome.PROCESSED),
				payments.billedOnce(), payments.billedTwice(), payments.unbilled(), billing(InboxOutcome.RETRY_SCHEDULED),
				republished, suppressed, billing(InboxOutcome.FAULTED), errorQueue, purged(), elapsed, problems);
	}

	private long errorQueueDepth(List<String> problems) {
		try {
			return this.broker.messagesIn(OrderPlacedHandler.ERROR_QUEUE);
		}
		catch (Exception ex) {
			problems.add("could not look into " + OrderPlacedHandler.ERROR_QUEUE + ": " + ex.getMessage());
			return 0;
		}
	}

	private long paidOrders() {
		Long paid = this.services.orderDatabase()
			.queryForObject("SELECT count(*) FROM orders.orders WHERE status = 'PAID' AND id = ANY (?)", Long.class,
					(Object) this.billable.toArray(UUID[]::new));
		return (paid != null) ? paid : 0;
	}

	private long paymentFailedOrders() {
		Long failed = this.services.orderDatabase()
			.queryForObject("SELECT count(*) FROM orders.orders WHERE status = 'PAYMENT_FAILED' AND id = ANY (?)",
					Long.class, (Object) this.unbillable.toArray(UUID[]::new));
		return (failed != null) ? failed : 0;
	}

	private long published() {
		return this.services.orderMonitor().published() + this.services.billingMonitor().published();
	}

	private long billing(InboxOutcome outcome) {
		return this.services.billingMonitor().outcomes(outcome);
	}

	private long billing(InboxOutcome outcome, String messageType) {
		return this.services.billingMonitor().outcomes(messageType, outcome);
	}

	private long duplicates() {
		return this.services.billingMonitor().outcomes(InboxOutcome.DUPLICATE)
				+ this.services.orderMonitor().outcomes(InboxOutcome.DUPLICATE);
	}

	private long purged() {
		return this.services.orderMonitor().purged() + this.services.billingMonitor().purged();
	}

	private double seconds() {
		return (System.nanoTime() - this.started) / 1e9;
	}

}
