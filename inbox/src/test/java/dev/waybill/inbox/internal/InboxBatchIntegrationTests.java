package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.metrics.InboxMetrics;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * {@link InboxProcessor#processBatch} on PostgreSQL: one transaction for the batch, rolled back
 * and run again without a delivery that cannot be handled in it; outcomes, publications and
 * meters per message.
 */
class InboxBatchIntegrationTests {

	/**
	 * A trigger body that ends its own connection, as a database restart would, in the batch's
	 * many-row statements only (they read arrays with unnest).
	 */
	private static final String LOSE_CONNECTION_IN_MANY_ROW_STATEMENT = "BEGIN IF current_query() LIKE '%unnest(%' "
			+ "THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF; RETURN NEW; END";

	private static TestSchema schema;

	private static TestInbox inbox;

	private final Map<String, Long> transactions = new ConcurrentHashMap<>();

	private SimpleMeterRegistry registry;

	private InboxProcessor processor;

	private String queue;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_batch");
		inbox = new TestInbox(schema);
		schema.execute("CREATE TABLE " + schema.name() + ".effects (item text NOT NULL)");
		schema.execute("CREATE TABLE " + schema.name() + ".own_effects (item text NOT NULL)");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@BeforeEach
	void setUp() {
		this.registry = new SimpleMeterRegistry();
		InboxMetrics metrics = new InboxMetrics();
		metrics.bindTo(this.registry);
		RetryPolicy policy = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMinutes(1), 2,
				Duration.ofMinutes(10), 3, 0);
		this.processor = new InboxProcessor(resources(), InboxSettings.of(policy, 0).withListener(metrics));
		this.queue = "batch-" + UUID.randomUUID();
	}

	@Test
	void eachMessageGetsItsOwnOutcomeEffectsAndMetersInOneTransaction() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".effects (item) VALUES (?)", item.name());
			context.publish(new Done(item.name()));
			this.transactions.put(item.name(), inbox.jdbc().queryForObject("SELECT txid_current()", Long.class));
			if (item.name().startsWith("fail")) {
				throw new IllegalStateException("refused " + item.name());
			}
			if (item.name().startsWith("rollback-only")) {
				// a @Transactional service that joined the transaction and marked it rollback-only
				new TransactionTemplate(inbox.transactions().getTransactionManager())
					.executeWithoutResult((status) -> status.setRollbackOnly());
			}
		});
		InboundMessage first = TestInbox.inbound(new Item("a"));
		InboundMessage poison = TestInbox.altered(first, UUID.randomUUID().toString(), first.messageType(), "not json");
		List<InboundMessage> messages = List.of(first, TestInbox.inbound(new Item("b")), first,
				TestInbox.inbound(new Item("fail-c")), TestInbox.inbound(new Item("d")), poison,
				TestInbox.inbound(new Item("rollback-only-e")), TestInbox.inbound(new Item("f")));
		List<InboxDelivery> deliveries = new ArrayList<>();
		messages.forEach((message) -> deliveries.add(new InboxDelivery(consumer, message)));

		List<DeliveryResult> results = this.processor.processBatch(deliveries);

		assertThat(results).extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE,
					InboxOutcome.RETRY_SCHEDULED, InboxOutcome.PROCESSED, InboxOutcome.FAULTED,
					InboxOutcome.RETRY_SCHEDULED, InboxOutcome.PROCESSED);
		assertThat(this.transactions.get("a")).as("one transaction until the failing handler")
			.isEqualTo(this.transactions.get("b"));
		assertThat(this.transactions.get("d")).isNotEqualTo(this.transactions.get("a"));
		assertThat(effects()).containsExactlyInAnyOrder("a", "b", "d", "f");
		for (String item : List.of("a", "b", "d", "f")) {
			InboundMessage message = messages.stream().filter((m) -> new String(m.body()).contains("\"" + item + "\""))
				.findFirst().orElseThrow();
			assertThat(inbox.publishedWhileHandling(UUID.fromString(message.messageId())))
				.as("the consumer outbox of " + item).hasSize(1);
		}
		assertThat(inbox.publishedWhileHandling(UUID.fromString(messages.get(3).messageId())))
			.as("nothing the failed handler published").isEmpty();
		assertThat(count("processed")).isEqualTo(4);
		assertThat(count("duplicate")).isEqualTo(1);
		assertThat(count("retry_scheduled")).isEqualTo(2);
		assertThat(count("faulted")).isEqualTo(1);
		assertThat(this.registry.get(InboxMetrics.HANDLING).tag("queue", this.queue).timers().stream()
			.mapToLong((timer) -> timer.count()).sum()).as("a timing per message").isEqualTo(8);
		assertThat(this.registry.get(InboxMetrics.ROLLED_BACK).tag("queue", this.queue).counter().count())
			.as("a and b ran before fail-c and again after the rollback").isEqualTo(2);
	}

	@Test
	void aSingleDeliveryIsProcessedAsBefore() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
		});
		List<DeliveryResult> results = this.processor
			.processBatch(List.of(new InboxDelivery(consumer, TestInbox.inbound(new Item("solo")))));
		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.PROCESSED);
	}

	@Test
	void laterCopiesOfAMessageTheBatchProcessedAreDuplicatesCountedAsReceipts() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			this.transactions.put(item.name(), inbox.jdbc().queryForObject("SELECT txid_current()", Long.class));
		});
		InboundMessage a = TestInbox.inbound(new Item("a"));
		InboundMessage b = TestInbox.inbound(new Item("b"));

		List<DeliveryResult> results = this.processor.processBatch(List.of(new InboxDelivery(consumer, a),
				new InboxDelivery(consumer, b), new InboxDelivery(consumer, a), new InboxDelivery(consumer, a)));

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.PROCESSED,
				InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
		assertThat(this.transactions.get("a")).isEqualTo(this.transactions.get("b"));
		assertThat(ownEffects()).hasSize(2);
		assertThat(row(a)).containsEntry("processed", true).containsEntry("receive_count", 3);
		assertThat(row(b)).containsEntry("processed", true).containsEntry("receive_count", 1);
		assertThat(count("duplicate")).isEqualTo(2);
	}

	@Test
	void aRefusedBatchReceiptRollsItBackAndHandlesEachDeliveryAlone() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			this.transactions.put(item.name(), inbox.jdbc().queryForObject("SELECT txid_current()", Long.class));
		});
		// refuses the batch's one statement that records and marks the rows, not the single receipt
		List<InboundMessage> messages = List.of(TestInbox.inbound(new Item("x")), TestInbox.inbound(new Item("y")),
				TestInbox.inbound(new Item("z")));
		List<DeliveryResult> results = withTrigger("refuse_batch_receipt", "BEFORE INSERT",
				"BEGIN IF current_query() LIKE '%unnest(%' THEN RAISE EXCEPTION 'batch receipt refused'; END IF; RETURN NEW; END",
				() -> this.processor.processBatch(
					messages.stream().map((message) -> new InboxDelivery(consumer, message)).toList()));

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.PROCESSED,
				InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
		assertThat(this.transactions.get("x")).as("each alone").isNotEqualTo(this.transactions.get("y"));
		assertThat(this.transactions.get("y")).isNotEqualTo(this.transactions.get("z"));
		assertThat(ownEffects())
			.as("each handled once, alone").containsExactlyInAnyOrder(this.queue + "x", this.queue + "y",
					this.queue + "z");
		for (InboundMessage message : messages) {
			assertThat(row(message)).containsEntry("processed", true).containsEntry("receive_count", 1);
		}

		List<DeliveryResult> next = this.processor.processBatch(List.of(
				new InboxDelivery(consumer, TestInbox.inbound(new Item("v"))),
				new InboxDelivery(consumer, TestInbox.inbound(new Item("w")))));
		assertThat(next).extracting(DeliveryResult::outcome).containsOnly(InboxOutcome.PROCESSED);
		assertThat(this.transactions.get("v")).as("batching paused").isNotEqualTo(this.transactions.get("w"));
	}

	@Test
	void aConnectionLostWhileTheDeliveriesBeforeAFailingOneRunAgainFailsThemAllAndRecordsNothing() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			if (item.name().startsWith("fail")) {
				throw new IllegalStateException("refused " + item.name());
			}
		});
		// the failing handler rolls the batch back; recording p again ends the connection
		InboundMessage p = TestInbox.inbound(new Item("p"));
		List<InboundMessage> messages = List.of(p, TestInbox.inbound(new Item("fail-q")), TestInbox.inbound(new Item("r")));
		String sequence = schema.name() + ".receipts_of_p";
		schema.execute("CREATE SEQUENCE " + sequence);
		List<DeliveryResult> results = withTrigger("lose_rerun", "BEFORE INSERT", "BEGIN IF NEW.message_id = '"
				+ p.messageId() + "' AND nextval('" + sequence + "') > 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); "
				+ "PERFORM pg_sleep(5); END IF; RETURN NEW; END", () -> this.processor
					.processBatch(messages.stream().map((message) -> new InboxDelivery(consumer, message)).toList()));

		assertThat(results).allSatisfy((result) -> {
			assertThat(result.outcome()).isNull();
			assertThat(result.failure()).isNotNull();
			assertThat(result.unrecordable()).isFalse();
		});
		assertThat(ownEffects()).isEmpty();
		assertThat(inbox.jdbc().queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedInboxState()
				+ " WHERE consumer_id = ?", Integer.class, this.queue)).isZero();
	}

	@Test
	void messagesProcessedOrFaultedBeforeAreAnsweredInTheBatchAndTheirReceiptsCounted() {
		AtomicInteger handled = new AtomicInteger();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			handled.incrementAndGet();
			if (item.name().startsWith("fail")) {
				throw new IllegalStateException("refused " + item.name());
			}
		});
		InboundMessage done = TestInbox.inbound(new Item("done"));
		InboundMessage given = TestInbox.inbound(new Item("fail-given"));
		assertThat(this.processor.process(consumer, done)).isEqualTo(InboxOutcome.PROCESSED);
		InboxProcessor givesUpAtOnce = new InboxProcessor(resources(), InboxSettings.of(
				new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMinutes(1), 2, Duration.ofMinutes(10), 1, 0), 0));
		assertThat(givesUpAtOnce.process(consumer, given)).isEqualTo(InboxOutcome.FAULTED);
		InboundMessage fresh = TestInbox.inbound(new Item("fresh"));
		handled.set(0);

		List<DeliveryResult> results = this.processor.processBatch(List.of(new InboxDelivery(consumer, done),
				new InboxDelivery(consumer, given), new InboxDelivery(consumer, fresh), new InboxDelivery(consumer, given),
				new InboxDelivery(consumer, done)));

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.DUPLICATE,
				InboxOutcome.ALREADY_FAULTED, InboxOutcome.PROCESSED, InboxOutcome.ALREADY_FAULTED,
				InboxOutcome.DUPLICATE);
		assertThat(handled).as("only the new message's handler ran").hasValue(1);
		assertThat(row(done)).containsEntry("processed", true).containsEntry("receive_count", 3);
		assertThat(row(given)).containsEntry("processed", false).containsEntry("receive_count", 3);
		assertThat(row(fresh)).containsEntry("processed", true).containsEntry("receive_count", 1);
	}

	@Test
	void aBatchStoppedByAFailingHandlerRollsBackAndRunsTheDeliveriesBeforeItAgain() {
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			calls.computeIfAbsent(item.name(), (name) -> new AtomicInteger()).incrementAndGet();
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			this.transactions.put(item.name(), inbox.jdbc().queryForObject("SELECT txid_current()", Long.class));
			if (item.name().startsWith("fail")) {
				throw new IllegalStateException("refused " + item.name());
			}
		});
		InboundMessage a = TestInbox.inbound(new Item("a"));
		InboundMessage b = TestInbox.inbound(new Item("fail-b"));
		InboundMessage c = TestInbox.inbound(new Item("c"));
		InboundMessage d = TestInbox.inbound(new Item("d"));
		// d failed once before: its row exists, unprocessed, and the batch's statement marks it too
		inbox.transactions().executeWithoutResult((status) -> inbox.store()
			.recordFailure(UUID.fromString(d.messageId()), this.queue, "failed earlier", 5));

		// one statement records and marks a (twice), fail-b, c and d; fail-b rolls the batch back,
		// a runs again and commits, fail-b is retried alone, c and d form the next batch
		List<DeliveryResult> results = this.processor.processBatch(List.of(new InboxDelivery(consumer, a),
				new InboxDelivery(consumer, b), new InboxDelivery(consumer, a), new InboxDelivery(consumer, c),
				new InboxDelivery(consumer, d)));

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.PROCESSED,
				InboxOutcome.RETRY_SCHEDULED, InboxOutcome.DUPLICATE, InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
		assertThat(this.transactions.get("c")).as("the deliveries after the failure, batched again")
			.isEqualTo(this.transactions.get("d")).isNotEqualTo(this.transactions.get("a"));
		assertThat(calls).extractingByKeys("a", "fail-b", "c", "d").extracting(AtomicInteger::get)
			.as("a ran again after the rollback, fail-b's failure was not repeated").containsExactly(2, 1, 1, 1);
		assertThat(ownEffects()).as("a's first run left nothing")
			.containsExactlyInAnyOrder(this.queue + "a", this.queue + "c", this.queue + "d");
		assertThat(row(a)).as("each copy counted once").containsEntry("processed", true).containsEntry("receive_count", 2);
		assertThat(row(b)).containsEntry("processed", false).containsEntry("receive_count", 1);
		assertThat(row(c)).containsEntry("processed", true).containsEntry("receive_count", 1);
		assertThat(row(d)).as("its mark rolled back, processed by its handler in the next batch")
			.containsEntry("processed", true).containsEntry("receive_count", 2);
		assertThat(inbox.jdbc().queryForObject("SELECT attempts FROM " + schema.tables().qualifiedInboxState()
				+ " WHERE message_id = ?::uuid AND consumer_id = ?", Integer.class, b.messageId(), this.queue))
			.as("the failure in the batch counted as the first attempt").isEqualTo(1);
	}

	@Test
	void aHandlerThatSwallowsAFailedStatementInABatchFailsItselfNotTheNextHandler() {
		// A handler that catches the exception of a failed statement and returns normally, publishing
		// nothing: PostgreSQL has aborted the batch's transaction. That handler failed, not the next
		// one, whose first statement is refused (SQLSTATE 25P02).
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			calls.computeIfAbsent(item.name(), (name) -> new AtomicInteger()).incrementAndGet();
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			if (item.name().startsWith("swallow")) {
				try {
					inbox.jdbc().queryForObject("SELECT 1/0", Integer.class);
				}
				catch (DataAccessException ex) {
					// swallowed
				}
			}
		});
		List<InboundMessage> messages = List.of(TestInbox.inbound(new Item("a")), TestInbox.inbound(new Item("swallow-b")),
				TestInbox.inbound(new Item("c")), TestInbox.inbound(new Item("d")));

		List<DeliveryResult> results = this.processor
			.processBatch(messages.stream().map((message) -> new InboxDelivery(consumer, message)).toList());

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.PROCESSED,
				InboxOutcome.RETRY_SCHEDULED, InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
		assertThat(ownEffects()).containsExactlyInAnyOrder(this.queue + "a", this.queue + "c", this.queue + "d");
		assertThat(inbox.publishedWhileHandling(UUID.fromString(messages.get(2).messageId())))
			.as("no redelivery of c, whose handler did nothing wrong").isEmpty();
		Map<String, Object> swallowed = inbox.jdbc().queryForMap("SELECT attempts, last_error FROM "
				+ schema.tables().qualifiedInboxState() + " WHERE message_id = ?::uuid AND consumer_id = ?",
				messages.get(1).messageId(), this.queue);
		assertThat(swallowed).containsEntry("attempts", 1);
		assertThat((String) swallowed.get("last_error")).contains("25P02");
		assertThat(inbox.jdbc().queryForObject("SELECT attempts FROM " + schema.tables().qualifiedInboxState()
				+ " WHERE message_id = ?::uuid AND consumer_id = ?", Integer.class, messages.get(2).messageId(), this.queue))
			.as("c lost no attempt").isZero();
	}

	@Test
	void aHandlerThatFailsWhenItRunsAgainAfterTheRollbackIsRetriedAloneBeforeTheOneThatStoppedTheBatch() {
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		List<String> order = new CopyOnWriteArrayList<>();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			int call = calls.computeIfAbsent(item.name(), (name) -> new AtomicInteger()).incrementAndGet();
			order.add(item.name());
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			if (item.name().startsWith("fail") || (item.name().equals("s") && call == 2)) {
				throw new IllegalStateException("refused " + item.name() + ", call " + call);
			}
		});
		List<InboundMessage> messages = List.of(TestInbox.inbound(new Item("s")), TestInbox.inbound(new Item("fail-t")),
				TestInbox.inbound(new Item("u")));

		List<DeliveryResult> results = this.processor
			.processBatch(messages.stream().map((message) -> new InboxDelivery(consumer, message)).toList());

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.RETRY_SCHEDULED,
				InboxOutcome.RETRY_SCHEDULED, InboxOutcome.PROCESSED);
		assertThat(order).as("in delivery order: the batch, s again, then fail-t's failure recorded, then u")
			.containsExactly("s", "fail-t", "s", "u");
		assertThat(ownEffects()).containsExactly(this.queue + "u");
		for (InboundMessage message : messages.subList(0, 2)) {
			assertThat(row(message)).containsEntry("processed", false).containsEntry("receive_count", 1);
			assertThat(inbox.jdbc().queryForObject("SELECT attempts FROM " + schema.tables().qualifiedInboxState()
					+ " WHERE message_id = ?::uuid AND consumer_id = ?", Integer.class, message.messageId(), this.queue))
				.isEqualTo(1);
		}
	}

	@Test
	void theListenerHearsOneOutcomePerDeliveryWhenFailingHandlersRollTheBatchBack() {
		// Every outcome the listener hears is one delivery's: a rolled-back batch that runs its
		// deliveries again, or a handler that fails again alone, must not report an outcome twice.
		RecordingListener listener = new RecordingListener();
		InboxProcessor listened = new InboxProcessor(resources(), InboxSettings.of(
				new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMinutes(1), 2, Duration.ofMinutes(10), 3, 0), 1)
			.withListener(listener));
		Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			int call = calls.computeIfAbsent(item.name(), (name) -> new AtomicInteger()).incrementAndGet();
			if (item.name().startsWith("fail") || (item.name().equals("s") && call >= 2)) {
				throw new IllegalStateException("refused " + item.name() + ", call " + call);
			}
		});
		InboundMessage s = TestInbox.inbound(new Item("s"));
		InboundMessage a = TestInbox.inbound(new Item("a"));
		InboundMessage failB = TestInbox.inbound(new Item("fail-b"));
		InboundMessage poison = TestInbox.altered(a, UUID.randomUUID().toString(), a.messageType(), "not json");
		InboundMessage c = TestInbox.inbound(new Item("c"));
		List<InboundMessage> messages = List.of(s, a, failB, a, poison, c);

		List<DeliveryResult> results = listened
			.processBatch(messages.stream().map((message) -> new InboxDelivery(consumer, message)).toList());

		assertThat(results).extracting(DeliveryResult::outcome).containsExactly(InboxOutcome.RETRY_SCHEDULED,
				InboxOutcome.PROCESSED, InboxOutcome.RETRY_SCHEDULED, InboxOutcome.DUPLICATE, InboxOutcome.FAULTED,
				InboxOutcome.PROCESSED);
		assertThat(listener.of(s)).as("s ran in the batch, failed when it ran again after the rollback, and at its retry")
			.containsExactly("started " + s.messageId(), "rolled back " + s.messageId(),
					"delivered " + s.messageId() + " RETRY_SCHEDULED", "finished " + s.messageId() + " RETRY_SCHEDULED");
		assertThat(listener.of(failB)).containsExactly("started " + failB.messageId(),
				"delivered " + failB.messageId() + " RETRY_SCHEDULED",
				"finished " + failB.messageId() + " RETRY_SCHEDULED");
		assertThat(listener.of(poison)).containsExactly("started " + poison.messageId(),
				"poisoned " + poison.messageId(), "delivered " + poison.messageId() + " FAULTED",
				"finished " + poison.messageId() + " FAULTED");
		assertThat(listener.all().stream().filter((event) -> event.startsWith("delivered "))).as("one outcome a delivery")
			.hasSize(messages.size());
		assertThat(listener.all().stream().filter((event) -> event.endsWith(" RETRY_SCHEDULED")
				&& event.startsWith("delivered "))).as("one retry a failed message").hasSize(2);
		assertThat(listener.all().stream().filter((event) -> event.startsWith("started "))).hasSize(messages.size());
		assertThat(listener.all().stream().filter((event) -> event.startsWith("finished "))).hasSize(messages.size());
	}

	@Test
	void aConnectionLostAtTheBatchsReceiptFailsEveryDeliveryAndRecordsNothing() {
		AtomicInteger handled = new AtomicInteger();
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class,
				(item, context) -> handled.incrementAndGet());
		// the batch's one receipt statement ends its own connection, as a database restart would
		List<DeliveryResult> results = withTrigger("lose_batch_receipt", "BEFORE INSERT", LOSE_CONNECTION_IN_MANY_ROW_STATEMENT,
				() -> this.processor.processBatch(List.of(new InboxDelivery(consumer, TestInbox.inbound(new Item("g"))),
					new InboxDelivery(consumer, TestInbox.inbound(new Item("h"))))));

		assertThat(results).allSatisfy((result) -> {
			assertThat(result.outcome()).isNull();
			assertThat(result.failure()).isNotNull();
			assertThat(result.unrecordable()).isFalse();
		});
		assertThat(handled).as("no handler ran").hasValue(0);
		assertThat(inbox.jdbc().queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedInboxState()
				+ " WHERE consumer_id = ?", Integer.class, this.queue)).isZero();
	}

	/**
	 * Runs {@code action} while a row trigger on the inbox table runs {@code body}, a PL/pgSQL block.
	 */
	private static <T> T withTrigger(String name, String event, String body, Supplier<T> action) {
		schema.execute("CREATE FUNCTION " + schema.name() + "." + name + "() RETURNS trigger LANGUAGE plpgsql AS $$ "
				+ body + " $$");
		schema.execute("CREATE TRIGGER " + name + " " + event + " ON " + schema.tables().qualifiedInboxState()
				+ " FOR EACH ROW EXECUTE FUNCTION " + schema.name() + "." + name + "()");
		try {
			return action.get();
		}
		finally {
			schema.execute("DROP TRIGGER " + name + " ON " + schema.tables().qualifiedInboxState());
			schema.execute("DROP FUNCTION " + schema.name() + "." + name + "()");
		}
	}

	@Test
	void aHandlerStackOverflowIsItsFailureAndLeavesNoTransactionOpen() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			if (item.name().equals("deep")) {
				recurse(0); // a handler walking a message nested too deep
			}
		});
		InboundMessage deep = TestInbox.inbound(new Item("deep"));
		List<InboxDelivery> deliveries = List.of(new InboxDelivery(consumer, TestInbox.inbound(new Item("a"))),
				new InboxDelivery(consumer, deep), new InboxDelivery(consumer, TestInbox.inbound(new Item("c"))));

		List<DeliveryResult> results = processReleasingLeaks(deliveries);

		// Thrown on, it ended the consumer's lane with the batch's transaction open: its connection and
		// its inbox rows stayed locked, and every redelivery of the message waited on them for good.
		assertThat(results).extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.RETRY_SCHEDULED, InboxOutcome.PROCESSED);
		assertThat(row(deep).get("processed")).isEqualTo(false);
	}

	@Test
	void aBodyWhosePayloadCannotBeBuiltWithAnErrorIsPoisonAndTheBatchGoesOn() {
		List<String> handled = new CopyOnWriteArrayList<>();
		ConsumerRegistration<Checked> consumer = ConsumerRegistration.of(this.queue, Checked.class,
				(checked, context) -> handled.add(checked.name()));
		InboundMessage a = TestInbox.inbound(new Checked("a"));
		// A producer of another version sends what this version's constructor refuses with an Error.
		InboundMessage invalid = TestInbox.altered(a, TimeOrderedUuids.next().toString(), a.messageType(),
				"{\"name\":\"invalid\"}");
		InboundMessage c = TestInbox.inbound(new Checked("c"));
		List<InboxDelivery> deliveries = List.of(new InboxDelivery(consumer, a), new InboxDelivery(consumer, invalid),
				new InboxDelivery(consumer, c));

		List<DeliveryResult> results = processReleasingLeaks(deliveries);

		// Thrown on, the Error failed the consumer's lane: the batch stayed unacknowledged until its
		// channel closed, and each redelivery failed the same way.
		assertThat(results).extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.FAULTED, InboxOutcome.PROCESSED);
		assertThat(handled).containsExactly("a", "c");
		Map<String, Object> row = inbox.jdbc().queryForMap("SELECT faulted_at IS NOT NULL AS faulted, attempts, last_error"
				+ " FROM " + schema.tables().qualifiedInboxState() + " WHERE message_id = ?::uuid AND consumer_id = ?",
				invalid.messageId(), this.queue);
		assertThat(row.get("faulted")).isEqualTo(true);
		assertThat((String) row.get("last_error")).startsWith("the body cannot be read as " + Checked.class.getName())
			.contains("java.lang.AssertionError: a checked name must not start with 'invalid'");
	}

	@Test
	void anOutOfMemoryErrorOfAHandlerIsThrownOnWithTheBatchRolledBack() {
		ConsumerRegistration<Item> consumer = ConsumerRegistration.of(this.queue, Item.class, (item, context) -> {
			inbox.jdbc().update("INSERT INTO " + schema.name() + ".own_effects (item) VALUES (?)", this.queue + item.name());
			if (item.name().equals("oom") && context.redeliveryCount() == 0 && this.transactions.isEmpty()) {
				this.transactions.put("thrown", 1L);
				throw new OutOfMemoryError("thrown by the handler");
			}
		});
		InboundMessage oom = TestInbox.inbound(new Item("oom"));
		List<InboxDelivery> deliveries = List.of(new InboxDelivery(consumer, TestInbox.inbound(new Item("a"))),
				new InboxDelivery(consumer, oom));

		org.assertj.core.api.Assertions.assertThatThrownBy(() -> this.processor.processBatch(deliveries))
			.isInstanceOf(OutOfMemoryError.class);

		// No connection left bound to the thread in an open transaction, holding the batch's rows.
		assertThat(releaseLeakedTransaction()).as("a transaction left open").isFalse();
		assertThat(ownEffects()).isEmpty();
		assertThat(this.processor.processBatch(deliveries)).extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
	}

	private static InboxResources resources() {
		return new InboxResources(inbox.transactions().getTransactionManager(), inbox.store(),
				inbox.writer(), inbox.publisher(), inbox.consumerOutbox(), TestOutbox.serializer(), inbox.wakeUp());
	}

	/** Processes a batch, then closes any transaction it left bound to this thread. */
	private List<DeliveryResult> processReleasingLeaks(List<InboxDelivery> deliveries) {
		try {
			return this.processor.processBatch(deliveries);
		}
		finally {
			releaseLeakedTransaction();
		}
	}

	/**
	 * Closes a transaction the processor left bound to this thread, if any, so that a failure here
	 * does not leave the later tests waiting on its locks.
	 * @return whether there was one
	 */
	private static boolean releaseLeakedTransaction() {
		boolean leaked = !TransactionSynchronizationManager.getResourceMap().isEmpty();
		for (Object key : new ArrayList<>(TransactionSynchronizationManager.getResourceMap().keySet())) {
			Object holder = TransactionSynchronizationManager.unbindResource(key);
			if (holder instanceof ConnectionHolder connection) {
				try (java.sql.Connection open = connection.getConnection()) {
					open.rollback();
				}
				catch (java.sql.SQLException | RuntimeException ex) {
					// closed already
				}
			}
		}
		TransactionSynchronizationManager.clear();
		return leaked;
	}

	private static int recurse(int depth) {
		return recurse(depth + 1) + 1;
	}

	private List<String> ownEffects() {
		return inbox.jdbc().queryForList("SELECT item FROM " + schema.name() + ".own_effects WHERE item LIKE ?",
				String.class, this.queue + "%");
	}

	private Map<String, Object> row(InboundMessage message) {
		return inbox.jdbc().queryForMap("SELECT processed_at IS NOT NULL AS processed, receive_count FROM "
				+ schema.tables().qualifiedInboxState() + " WHERE message_id = ?::uuid AND consumer_id = ?",
				message.messageId(), this.queue);
	}

	private List<String> effects() {
		return inbox.jdbc().queryForList("SELECT item FROM " + schema.name() + ".effects", String.class);
	}

	private double count(String outcome) {
		return this.registry.get(InboxMetrics.DELIVERIES).tags("queue", this.queue, "outcome", outcome).counter().count();
	}

	@MessageType("waybill-test.batch.item")
	record Item(String name) {
	}

	@MessageType("waybill-test.batch.checked")
	record Checked(String name) {

		Checked {
			if (name.startsWith("invalid")) {
				throw new AssertionError("a checked name must not start with 'invalid'");
			}
		}

	}

	@MessageType("waybill-test.batch.done")
	record Done(String name) {
	}

}
