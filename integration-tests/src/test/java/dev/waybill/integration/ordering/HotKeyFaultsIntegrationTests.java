package dev.waybill.integration.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.integration.relay.RelayProcess;
import dev.waybill.integration.support.Resources;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.test.ForwardingTransport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * One hot ordering key end to end, on PostgreSQL and RabbitMQ: 20,000 messages of one key, each its
 * own transaction, relayed by two in-process relays and one in another JVM, consumed by two
 * single-active-consumer instances, while failures hit the middle of the relay's key runs:
 * <ul>
 * <li>a nack before the broker took the message and one after it did (the in-process relays'
 * transport fails one in 997 of the messages it publishes behind their predecessor in a run, each
 * way);</li>
 * <li>an unroutable return: as often, such a message goes to an exchange with no queue bound, so
 * the broker returns it;</li>
 * <li>channels closed by the broker: the message type's exchange is deleted and declared again
 * (with the queue's binding) until a publish reaches the broker while it is gone, and the broker
 * closes that channel with NOT_FOUND;</li>
 * <li>a confirm timeout: the in-process relays reach the broker through a {@link TcpProxy}, paused
 * until a confirm is overdue;</li>
 * <li>a relay killed (SIGKILL) while it holds leases on the key's scopes;</li>
 * <li>the active consumer stopped (the other takes over), started again, and then the other stopped,
 * so the restarted one finishes.</li>
 * </ul>
 * It asserts that the handler saw the key's messages in commit order, each once in effect (the rows
 * it wrote in the inbox transaction), never two at a time, that every kind of failure happened,
 * that duplicates reached the inbox and were dropped, and that nothing is left pending or dead.
 */
class HotKeyFaultsIntegrationTests {

	private static final int MESSAGES = 20_000;

	private static final String KEY = "hot";

	/** The message type's exchange: of this class alone, as the test deletes it. */
	private static final String TYPE = "test.hotkey-step";

	/** How far the writer may be ahead of the handler. */
	private static final int AHEAD = 1_000;

	/** Each injected failure comes once in this many of a relay's publishes in the middle of a run. */
	private static final int FAULT_PERIOD = 997;

	private final Resources resources = new Resources();

	private TestSchema orders;

	private TestSchema billing;

	private String queue;

	private String unbound;

	private Connection admin;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		this.orders = TestSchema.withWaybillTables("hotkey_orders");
		this.billing = TestSchema.withWaybillTables("hotkey_billing");
		KeyedRecorder.createTable(this.billing);
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		this.queue = "hotkey-" + suffix;
		this.unbound = "hotkey-unbound-" + suffix;
		this.admin = TestRabbit.get().connect();
		this.channel = this.admin.createChannel();
		this.channel.exchangeDeclare(this.unbound, "fanout", false);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.resources.close();
		try (Connection connection = this.admin) {
			Channel cleanup = connection.createChannel();
			cleanup.queueDelete(this.queue);
			cleanup.queueDelete(this.queue + "_error");
			cleanup.exchangeDelete(this.unbound);
			cleanup.exchangeDelete(TYPE);
		}
		this.orders.close();
		this.billing.close();
	}

	@Test
	void aHotKeysMessagesAreHandledInCommitOrderOnceDespiteFailuresInTheMiddleOfItsRuns() throws Exception {
		long started = System.nanoTime();
		KeyedRecorder.Shared recorded = new KeyedRecorder.Shared();
		TestReceiveEndpoint first = endpoint("first", recorded);
		TestReceiveEndpoint second = endpoint("second", recorded);
		first.start(); // the first to consume a single-active-consumer queue is its active consumer
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(first::isConsuming);
		second.start();
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(second::isConsuming);

		Faults faults = new Faults(this.unbound);
		TcpProxy proxy = TestRabbit.get().proxy();
		this.resources.add(proxy);
		// fast retries, and attempts enough that no scope dies of the faults
		RetryPolicy retry = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMillis(20), 2,
				Duration.ofMillis(200), 1000, 0);
		TestOutbox outbox = TestOutbox.on(this.orders);
		for (int i = 0; i < 2; i++) {
			Transport transport = TestRabbit.get().transport(proxy).confirmTimeout(Duration.ofSeconds(1)).build();
			this.resources.add(transport);
			TestRelay relay = TestRelay.builder(outbox.store(), new FaultyTransport(transport, faults))
				.settings(2, 100, Duration.ofSeconds(3), Duration.ofMillis(100), Duration.ofSeconds(5), retry, 3,
						Duration.ofMillis(500))
				.start();
			this.resources.add(relay);
		}
		Path childOutput = Files.createTempFile("hotkey-relay", ".log");
		this.resources.add(() -> Files.deleteIfExists(childOutput));
		Process child = RelayProcess.builder(this.orders.name(), Duration.ofSeconds(2), 100)
			.redirectOutput(childOutput.toFile())
			.start();
		this.resources.add(child::destroyForcibly);

		OutboxPublisher publisher = outbox.publisher();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.orders.dataSource()));
		ExecutorService writer = Executors.newSingleThreadExecutor();
		this.resources.add(writer::shutdownNow);
		// One writer: its transactions commit in the order of their seq. It stays at most AHEAD
		// messages ahead of the handler, so that the relays are still publishing when each fault
		// below is injected: a relay that keeps up with the writer would otherwise be done first.
		Future<?> written = writer.submit(() -> {
			for (int seq = 0; seq < MESSAGES; seq++) {
				if (seq % 100 == 0) {
					int upTo = seq;
					Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
						.until(() -> upTo - handled() <= AHEAD);
				}
				Step step = new Step(KEY, seq);
				transactions.executeWithoutResult((status) -> publisher.publish(step, (o) -> o.orderingKey(KEY)));
			}
		});

		String childId = Awaitility.await().atMost(Duration.ofSeconds(60))
			.until(() -> relayId(childOutput), (id) -> id != null);
		awaitHandled(MESSAGES / 10);
		Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
			.until(() -> leasesHeldBy(childId) > 0);
		child.destroyForcibly(); // SIGKILL mid-run: its leases expire and the others take the run over
		assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();

		awaitHandled(MESSAGES / 4);
		int closedBefore = faults.channelsClosed.get();
		Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
			.until(() -> {
				removeTheExchangeBriefly();
				return faults.channelsClosed.get() > closedBefore;
			});

		awaitHandled(MESSAGES * 2 / 5);
		int timeoutsBefore = faults.confirmTimeouts.get();
		proxy.pause(); // the broker's confirms cannot come back
		try {
			Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> faults.confirmTimeouts.get() > timeoutsBefore);
		}
		finally {
			proxy.restore();
		}

		awaitHandled(MESSAGES / 2);
		first.stop(); // the broker hands the queue to the other instance
		first.start(); // and this one stands by
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(first::isConsuming);
		awaitHandled(MESSAGES * 7 / 10);
		second.stop(); // the restarted instance takes over
		second.start();
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(second::isConsuming);

		written.get(3, TimeUnit.MINUTES);
		awaitHandled(MESSAGES);
		Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> outbox.store().stats().pendingScopes() == 0);
		// a duplicate handled twice would show by now: the queue empty, the count stays
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queueMessages() == 0);
		Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10))
			.until(() -> handled() == MESSAGES);
		long wall = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

		List<Row> rows = new ArrayList<>();
		JdbcTemplate billingJdbc = new JdbcTemplate(this.billing.dataSource());
		billingJdbc.query("SELECT seq, consumer, message_id FROM " + this.billing.name() + ".handled ORDER BY n",
				(row) -> {
					rows.add(new Row(row.getInt(1), row.getString(2), row.getString(3)));
				});
		Integer redelivered = billingJdbc.queryForObject("SELECT count(*) FROM "
				+ this.billing.tables().qualifiedInboxState() + " WHERE receive_count > 1", Integer.class);
		OutboxStats stats = outbox.store().stats();
		System.out.println("Hot key with faults: " + MESSAGES + " messages of one key; " + faults + ", 1 relay killed "
				+ "mid-run, 2 consumer hand-overs; " + redelivered + " messages received more than once (dropped by "
				+ "the inbox); " + wall + " ms");

		assertThat(disorder(rows)).as("the first place where the handled messages are not 0..%d in order, each once",
				MESSAGES - 1).isNull();
		assertThat(rows).hasSize(MESSAGES);
		assertThat(recorded.overlaps.get()).as("two messages of the key handled at once").isZero();
		assertThat(handOvers(rows)).as("the consumers that handled the key, in turn").containsExactly("first", "second",
				"first");
		assertThat(faults.nackedBefore.get()).as("publishes failed before sending").isPositive();
		assertThat(faults.nackedAfter.get()).as("publishes failed after the broker took them").isPositive();
		assertThat(faults.returned.get()).as("publishes the broker returned as unroutable").isPositive();
		assertThat(faults.channelsClosed.get()).as("channels the broker closed").isPositive();
		assertThat(faults.confirmTimeouts.get()).as("confirms overdue").isPositive();
		assertThat(redelivered).as("duplicates reached the consumer and were dropped").isPositive();
		assertThat(stats.pendingScopes()).isZero();
		assertThat(stats.deadScopes()).isZero();
	}

	/**
	 * Describes the first row whose seq is not its place (a swapped pair, a duplicate, a gap), with
	 * the rows around it; {@literal null} when every row is in its place.
	 */
	private static String disorder(List<Row> rows) {
		for (int i = 0; i < rows.size(); i++) {
			if (rows.get(i).seq() != i) {
				return "row " + i + " of " + rows.size() + ": " + rows.subList(Math.max(0, i - 3), Math.min(rows.size(), i + 4));
			}
		}
		return null;
	}

	/** The consumers that handled the rows, each named once per turn. */
	private static List<String> handOvers(List<Row> rows) {
		List<String> turns = new ArrayList<>();
		for (Row row : rows) {
			if (turns.isEmpty() || !turns.get(turns.size() - 1).equals(row.consumer())) {
				turns.add(row.consumer());
			}
		}
		return turns;
	}

	/**
	 * Deletes the message type's exchange (the queue's binding goes with it) and declares both again
	 * as Waybill does: a publish in between reaches an exchange that is not there, and the broker
	 * closes its channel.
	 */
	private void removeTheExchangeBriefly() throws Exception {
		this.channel.exchangeDelete(TYPE);
		this.channel.exchangeDeclare(TYPE, "fanout", true);
		this.channel.queueBind(this.queue, TYPE, "");
	}

	private void awaitHandled(int count) {
		Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50)).until(() -> handled() >= count);
	}

	private int handled() {
		Integer count = new JdbcTemplate(this.billing.dataSource())
			.queryForObject("SELECT count(*) FROM " + this.billing.name() + ".handled", Integer.class);
		return (count != null) ? count : 0;
	}

	private int leasesHeldBy(String relayId) {
		Integer count = new JdbcTemplate(this.orders.dataSource()).queryForObject("SELECT count(*) FROM "
				+ this.orders.tables().qualifiedOutboxState() + " WHERE status = 'pending' AND starts_with(lease_owner, ?)",
				Integer.class, relayId);
		return (count != null) ? count : 0;
	}

	private static String relayId(Path output) throws Exception {
		for (String line : Files.readAllLines(output)) {
			if (line.startsWith("RELAY STARTED ")) {
				return line.substring("RELAY STARTED ".length()).trim();
			}
		}
		return null;
	}

	private long queueMessages() throws Exception {
		return this.channel.queueDeclarePassive(this.queue).getMessageCount();
	}

	private TestReceiveEndpoint endpoint(String name, KeyedRecorder.Shared recorded) {
		DeliveryProcessor processor = new TestInbox(this.billing).deliveryProcessor(RetryPolicy.defaults(), 3);
		Transport transport = TestRabbit.get().transport().build();
		this.resources.add(transport);
		// The default concurrency and prefetch let 128 deliveries in: more than the 99 a refused
		// message of a run of 100 can have ahead of its retry, which the consumer holds back unacknowledged.
		ReceiveEndpoint consumer = ReceiveEndpoint.on(this.queue)
			.withQueueArguments(Map.of("x-single-active-consumer", true))
			.handle(Step.class, new KeyedRecorder<>(this.billing, name, Step::key, Step::seq, recorded));
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.create(transport, processor, List.of(consumer),
				Duration.ofSeconds(20));
		this.resources.add(endpoint);
		return endpoint;
	}

	/** One message of the hot key. */
	@MessageType(TYPE)
	public record Step(String key, int seq) {
	}

	private record Row(int seq, String consumer, String messageId) {

		@Override
		public String toString() {
			return this.seq + "/" + this.consumer + "/" + this.messageId;
		}

	}

	/** The failures injected into the relays' publishes, and those the relays saw, by kind. */
	static final class Faults {

		final String unbound;

		final AtomicInteger nackedBefore = new AtomicInteger();

		final AtomicInteger nackedAfter = new AtomicInteger();

		final AtomicInteger redirected = new AtomicInteger();

		final AtomicInteger returned = new AtomicInteger();

		/** Returned while the message type's exchange was back but not yet bound to the queue again. */
		final AtomicInteger returnedWithoutBinding = new AtomicInteger();

		final AtomicInteger channelsClosed = new AtomicInteger();

		final AtomicInteger confirmTimeouts = new AtomicInteger();

		final AtomicInteger other = new AtomicInteger();

		/** The reasons of the other failures, ids and numbers left out. */
		final Set<String> otherReasons = ConcurrentHashMap.newKeySet();

		Faults(String unbound) {
			this.unbound = unbound;
		}

		/** Counts a publish's failure by its kind, as the relay was told it. */
		void observe(Throwable failure) {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
					: failure;
			String message = String.valueOf(cause.getMessage());
			if (message.startsWith("injected")) {
				return;
			}
			if (message.contains("unroutable") && message.contains("'" + this.unbound + "'")) {
				this.returned.incrementAndGet();
			}
			else if (message.contains("unroutable")) {
				this.returnedWithoutBinding.incrementAndGet();
			}
			else if (message.contains("NOT_FOUND")) {
				this.channelsClosed.incrementAndGet();
			}
			else if (message.contains("confirmed nothing") || message.contains("No publisher confirm")) {
				this.confirmTimeouts.incrementAndGet();
			}
			else {
				this.other.incrementAndGet();
				this.otherReasons.add(message.replaceAll("[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9]+", "#"));
			}
		}

		@Override
		public String toString() {
			return this.nackedBefore + " nacked before sending, " + this.nackedAfter + " after, " + this.redirected
					+ " sent to an unbound exchange (" + this.returned + " publishes returned unroutable), "
					+ this.channelsClosed + " publishes failed by a channel the broker closed (and "
					+ this.returnedWithoutBinding + " returned while the exchange had no binding), " + this.confirmTimeouts
					+ " by an overdue confirm, " + this.other + " by other failures " + this.otherReasons;
		}

	}

	/**
	 * The real transport, failing one publish in {@value #FAULT_PERIOD} of those in the middle of a
	 * run as a nack before it reaches the broker, one after (the broker has it: a duplicate when it is
	 * published again), and sending one to an exchange no queue is bound to, which the broker
	 * returns; it counts what the relay is told of every publish.
	 */
	static final class FaultyTransport extends ForwardingTransport {

		private final Faults faults;

		private final AtomicLong publishes = new AtomicLong();

		FaultyTransport(Transport delegate, Faults faults) {
			super(delegate);
			this.faults = faults;
		}

		@Override
		protected CompletableFuture<Void> publish(TransportChannel channel, OutboxMessage message) {
			// Only messages published behind their predecessor count, so every fault hits the middle of a run.
			boolean midRun = message.headers().containsKey(PublishOptions.ORDERING_PREVIOUS_HEADER);
			long turn = midRun ? this.publishes.incrementAndGet() % FAULT_PERIOD : -1;
			CompletableFuture<Void> published;
			if (turn == FAULT_PERIOD / 4) {
				this.faults.nackedBefore.incrementAndGet();
				published = CompletableFuture.failedFuture(
						new TransportException(TransportException.Kind.MESSAGE, "injected: nacked before sending"));
			}
			else if (turn == FAULT_PERIOD / 2) {
				this.faults.redirected.incrementAndGet();
				published = channel.publish(to(this.faults.unbound, message));
			}
			else {
				published = channel.publish(message);
				if (turn == FAULT_PERIOD * 3 / 4) {
					this.faults.nackedAfter.incrementAndGet();
					published = published.thenCompose((ok) -> CompletableFuture.failedFuture(
							new TransportException(TransportException.Kind.MESSAGE, "injected: nacked after sending")));
				}
			}
			return published.whenComplete((ok, failure) -> {
				if (failure != null) {
					this.faults.observe(failure);
				}
			});
		}

		private static OutboxMessage to(String exchange, OutboxMessage message) {
			return new OutboxMessage(message.messageId(), exchange, message.routingKey(), message.messageType(),
					message.contentType(), message.headers(), message.body(), message.correlationId(),
					message.conversationId(), message.sourceHost(), message.sentAt(), message.notBefore(),
					message.expiresAt());
		}

	}

}
