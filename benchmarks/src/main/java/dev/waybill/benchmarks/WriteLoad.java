package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.OutboxPublisher;

/**
 * Business transactions on several threads: each inserts one row into {@code orders} and,
 * {@link #withMessage when asked}, publishes one {@link BenchOrder} through the
 * {@link OutboxPublisher}, in a Spring-managed transaction, which is what an {@code @Outbox}
 * method is ({@code @Outbox} is {@code @Transactional}).
 */
final class WriteLoad {

	private final OutboxWiring wiring;

	private final String destination;

	private final JdbcTemplate jdbc;

	private final String orders;

	private final String insert;

	private final AtomicLong sequence = new AtomicLong();

	private final String rawOutboxInsert;

	private final TransactionTemplate transactions;

	private final Consumer<Runnable> eachTransaction;

	WriteLoad(OutboxWiring wiring, String destination) {
		this(wiring, destination, Runnable::run);
	}

	/**
	 * Prepares a load whose threads run each business transaction through {@code eachTransaction},
	 * as a request filter runs a request: e.g. with the request's tenant set where a
	 * {@code StoreResolver} reads it, and cleared after.
	 * @param wiring the application
	 * @param destination where the messages go
	 * @param eachTransaction runs the transaction it is given, once
	 */
	WriteLoad(OutboxWiring wiring, String destination, Consumer<Runnable> eachTransaction) {
		this.wiring = wiring;
		this.eachTransaction = eachTransaction;
		this.destination = destination;
		this.jdbc = wiring.jdbc();
		this.transactions = wiring.transactions();
		this.orders = wiring.schema().name() + ".orders";
		this.insert = "INSERT INTO " + this.orders + " (customer, total) VALUES (?, ?)";
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS " + this.orders + " (id bigint GENERATED ALWAYS AS IDENTITY "
				+ "PRIMARY KEY, customer text NOT NULL, total numeric(12, 2) NOT NULL, created_at timestamptz NOT NULL "
				+ "DEFAULT now())");
		// The rows Waybill writes for one 1-message scope, as plain SQL: the database's own cost.
		this.rawOutboxInsert = "WITH s AS (INSERT INTO " + wiring.schema().tables().qualifiedOutboxState()
				+ " (id, created_at, next_attempt_at, message_count) VALUES (?, clock_timestamp(), now(), 1) RETURNING id) "
				+ "INSERT INTO " + wiring.schema().tables().qualifiedOutboxMessage() + " (outbox_id, message_id, "
				+ "destination, routing_key, message_type, content_type, headers, body, created_at) "
				+ "SELECT s.id, ?, ?, '', ?, 'application/json', '{}', ?, now() FROM s";
	}

	/**
	 * Starts Waybill without a relay on a new schema and prepares a load on it, sending to an
	 * exchange of its own.
	 * @param context the benchmark context
	 * @param benchmark the benchmark's name
	 * @return the load
	 */
	static WriteLoad on(BenchContext context, String benchmark) {
		return new WriteLoad(context.wiring(context.schema(benchmark), UnaryOperator.identity()),
				context.uniqueName(benchmark));
	}

	OutboxWiring wiring() {
		return this.wiring;
	}

	/**
	 * Empties {@code orders}.
	 */
	void truncate() {
		this.jdbc.execute("TRUNCATE " + this.orders);
	}

	/**
	 * Runs transactions on {@code threads} threads while {@code during} runs.
	 * @param threads how many threads
	 * @param withMessage whether each transaction also publishes a message
	 * @param during what to run meanwhile, e.g. a sleep or a purge; the load stops when it returns
	 * @return committed transactions per second while {@code during} ran
	 */
	double runWhile(int threads, boolean withMessage, Callable<?> during) throws Exception {
		return runWhile(threads, withMessage ? Mode.OUTBOX : Mode.ROW_ONLY, during);
	}

	/**
	 * Runs transactions of the given kind on {@code threads} threads while {@code during} runs.
	 * @return committed transactions per second while {@code during} ran
	 */
	double runWhile(int threads, Mode mode, Callable<?> during) throws Exception {
		AtomicLong committed = new AtomicLong();
		AtomicBoolean stop = new AtomicBoolean();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Thread worker = new Thread(() -> loop(mode, committed, stop, failures), "bench-writer-" + i);
			worker.setDaemon(true);
			workers.add(worker);
		}
		workers.forEach(Thread::start);
		Timer timer = Timer.start();
		double rate;
		try {
			during.call();
		}
		finally {
			rate = timer.rate(committed.get());
			stop.set(true);
			for (Thread worker : workers) {
				worker.join();
			}
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException("A business transaction failed: " + failures.get(0), failures.get(0));
		}
		return rate;
	}

	/**
	 * Runs transactions on {@code threads} threads for {@code seconds}.
	 * @return committed transactions per second
	 */
	double run(int threads, boolean withMessage, double seconds) throws Exception {
		return run(threads, withMessage ? Mode.OUTBOX : Mode.ROW_ONLY, seconds);
	}

	/**
	 * Runs transactions of the given kind on {@code threads} threads for {@code seconds}.
	 * @return committed transactions per second
	 */
	double run(int threads, Mode mode, double seconds) throws Exception {
		return runWhile(threads, mode, () -> {
			Thread.sleep((long) (seconds * 1000));
			return null;
		});
	}

	/**
	 * Starts transactions on {@code threads} threads that run until the returned load is closed, so
	 * that windows of it can be timed while other work starts and stops.
	 * @param threads how many threads
	 * @param withMessage whether each transaction also publishes a message
	 * @return the running load
	 */
	Running start(int threads, boolean withMessage) {
		Running running = new Running();
		Mode mode = withMessage ? Mode.OUTBOX : Mode.ROW_ONLY;
		for (int i = 0; i < threads; i++) {
			Thread worker = new Thread(() -> loop(mode, running.committed, running.stop, running.failures),
					"bench-writer-" + i);
			worker.setDaemon(true);
			running.workers.add(worker);
		}
		running.workers.forEach(Thread::start);
		return running;
	}

	/**
	 * A load started by {@link #start}: its commit count, and {@link #close} stops it.
	 */
	static final class Running implements AutoCloseable {

		private final AtomicLong committed = new AtomicLong();

		private final AtomicBoolean stop = new AtomicBoolean();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		private final List<Thread> workers = new ArrayList<>();

		/**
		 * Returns the transactions committed since the load started.
		 * @return the count
		 */
		long committed() {
			return this.committed.get();
		}

		/**
		 * Sleeps {@code seconds} and returns the transactions committed per second meanwhile.
		 * @param seconds the window
		 * @return committed transactions per second
		 */
		double rateOver(double seconds) throws InterruptedException {
			long before = committed();
			Timer timer = Timer.start();
			Thread.sleep((long) (seconds * 1000));
			return timer.rate(committed() - before);
		}

		@Override
		public void close() throws InterruptedException {
			this.stop.set(true);
			for (Thread worker : this.workers) {
				worker.join();
			}
			if (!this.failures.isEmpty()) {
				throw new IllegalStateException("A business transaction failed: " + this.failures.get(0),
						this.failures.get(0));
			}
		}

	}

	/**
	 * Inserts one business row, in the caller's transaction when it has one.
	 * @param seq the row's sequence number
	 */
	void insertOrder(long seq) {
		this.jdbc.update(this.insert, "customer-" + (seq % 1000), 42.50);
	}

	/**
	 * Runs one business transaction: one row, and one message through the outbox to the load's
	 * destination.
	 * @param seq the row's and the message's sequence number
	 * @param orderingKey the message's ordering key, or null for none
	 * @return the message's id
	 */
	UUID sendOrder(long seq, @Nullable String orderingKey) {
		return this.transactions.execute((status) -> {
			insertOrder(seq);
			return this.wiring.publisher().send(this.destination, BenchOrder.of(seq), (options) -> options.orderingKey(orderingKey));
		});
	}

	/**
	 * Runs one business transaction of one row under a transaction-scoped advisory lock of the
	 * key, without the outbox: what a key's writers cost when they commit one after the other, as
	 * an ordering key's writers do.
	 * @param seq the row's sequence number
	 * @param key the key whose lock the transaction holds until it commits
	 * @return an id for the transaction, to count it by
	 */
	UUID insertOrderUnderLock(long seq, String key) {
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.queryForObject("SELECT count(pg_advisory_xact_lock(hashtext(?)))", Long.class, key);
			insertOrder(seq);
		});
		return TimeOrderedUuids.next();
	}

	private void loop(Mode mode, AtomicLong committed, AtomicBoolean stop, List<Throwable> failures) {
		TransactionTemplate transactions = this.wiring.transactions();
		OutboxPublisher publisher = this.wiring.publisher();
		while (!stop.get()) {
			long seq = this.sequence.incrementAndGet();
			try {
				this.eachTransaction.accept(() -> transactions.executeWithoutResult((status) -> {
					insertOrder(seq);
					if (mode == Mode.OUTBOX) {
						publisher.send(this.destination, BenchOrder.of(seq));
					}
					else if (mode == Mode.RAW_SQL) {
						this.jdbc.update(this.rawOutboxInsert, TimeOrderedUuids.next(), TimeOrderedUuids.next(),
								this.destination, BenchOrder.TYPE, BenchOrder.json(seq));
					}
				}));
				committed.incrementAndGet();
			}
			catch (RuntimeException ex) {
				failures.add(ex);
				return;
			}
		}
	}

	/** What each business transaction does besides inserting its row. */
	enum Mode {

		/** Nothing. */
		ROW_ONLY,

		/** Publishes one message through Waybill's outbox. */
		OUTBOX,

		/** Inserts the rows Waybill would write for one message, as plain SQL, without Waybill. */
		RAW_SQL

	}

}
