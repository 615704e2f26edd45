package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;

/**
 * {@link InboxProcessor} against PostgreSQL, wired by hand as a transport endpoint would use it:
 * dedupe, the consumer outbox, consumer retry and the error path of DESIGN rules 7 and 8.
 */
class InboxProcessorIntegrationTests {

	private static final Duration INTERVAL = Duration.ofMinutes(1);

	private static TestSchema schema;

	private static TestInbox inbox;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_processor");
		inbox = new TestInbox(schema);
		jdbc = inbox.jdbc();
		jdbc.execute("CREATE TABLE " + schema.name() + ".charges (order_id text PRIMARY KEY, message_id uuid NOT NULL)");
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void theHandlerRunsOnceAndItsRowsCommitWithTheProcessedInboxRow() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-1", 100));

		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);

		UUID id = UUID.fromString(message.messageId());
		assertThat(calls).hasValue(1);
		assertThat(jdbc.queryForObject("SELECT message_id FROM " + schema.name() + ".charges WHERE order_id = 'o-1'",
				UUID.class)).isEqualTo(id);
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row.get("processed_at")).isNotNull();
		assertThat(row).containsEntry("receive_count", 1).containsEntry("attempts", 0).containsEntry("faulted_at", null);
		assertThat(inbox.outboxMessages(queue)).isEmpty();
	}

	@Test
	void theListenerHearsEachOutcomeAfterItCommittedAndCannotChangeIt() {
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class,
				InboxProcessorIntegrationTests::charge);
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-heard", 150));
		UUID id = UUID.fromString(message.messageId());
		// Outside the inbox transaction: sees only what committed.
		JdbcTemplate monitor = new JdbcTemplate(new DelegatingDataSource(schema.dataSource()));
		List<String> heard = new CopyOnWriteArrayList<>();
		InboxListener listener = (registration, delivery, outcome) -> {
			Integer processed = monitor.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedInboxState()
					+ " WHERE message_id = ? AND consumer_id = ? AND processed_at IS NOT NULL", Integer.class, id, queue);
			heard.add(registration.queue() + " " + delivery.messageId() + " " + outcome + " committed=" + processed);
			throw new IllegalStateException("a listener that fails");
		};
		InboxProcessor processor = new InboxProcessor(new InboxResources(inbox.transactions().getTransactionManager(),
				inbox.store(), inbox.writer(), inbox.publisher(), inbox.consumerOutbox(), TestOutbox.serializer(),
				inbox.wakeUp()),
				InboxSettings.of(RetryPolicy.defaults(), 0).withListener(listener));

		assertThat(List.of(processor.process(consumer, message), processor.process(consumer, message)))
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE);
		assertThat(heard).containsExactly(queue + " " + id + " PROCESSED committed=1",
				queue + " " + id + " DUPLICATE committed=1");
	}

	@Test
	void theSameMessageThreeTimesRunsTheHandlerOnceAndCountsEveryReceipt() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class,
				(message, context) -> calls.incrementAndGet());
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-2", 200));
		InboxProcessor processor = processor(0);

		assertThat(List.of(processor.process(consumer, message), processor.process(consumer, message),
				processor.process(consumer, message)))
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.DUPLICATE, InboxOutcome.DUPLICATE);
		assertHandledOnce(calls, message, queue, 3);
	}

	@Test
	void twoConcurrentDeliveriesOfOneMessageRunTheHandlerOnce() throws Exception {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		// Outside the handler's transaction, so each poll sees the current activity.
		JdbcTemplate monitor = new JdbcTemplate(new DelegatingDataSource(schema.dataSource()));
		String table = schema.tables().qualifiedInboxState();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			// Hold the inbox row until the other delivery waits for its lock.
			await().atMost(Duration.ofSeconds(20)).until(() -> monitor.queryForObject("SELECT count(*) FROM "
					+ "pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?", Integer.class,
					"%" + table + "%") > 0);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-3", 300));
		assertThat(processTwiceAtOnce(processor(0), consumer, message)).containsExactlyInAnyOrder(InboxOutcome.PROCESSED,
				InboxOutcome.DUPLICATE);
		assertHandledOnce(calls, message, queue, 2);
	}

	@Test
	void twoConcurrentDeliveriesOfOneMessageWhoseFirstAttemptFailsScheduleOneRetryForEachFailedAttempt()
			throws Exception {
		// Two copies of one message at once (a broker redelivery of a delivery still in flight, or a
		// scope the relay published twice): the second waits on the first's row lock, and the first's
		// rollback takes its row away. When the second gets the row before the first's failure is
		// recorded, it runs as a first attempt too; each failed attempt schedules its own redelivery,
		// and no retry is scheduled for a copy that did not fail.
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		JdbcTemplate monitor = new JdbcTemplate(new DelegatingDataSource(schema.dataSource()));
		String table = schema.tables().qualifiedInboxState();
		List<Integer> redeliveryCounts = new CopyOnWriteArrayList<>();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			redeliveryCounts.add(context.redeliveryCount());
			if (calls.incrementAndGet() == 1) {
				// Until the other copy waits on this transaction's row lock.
				Integer holder = jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> monitor.queryForObject("SELECT count(*) FROM "
						+ "pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid)) AND query LIKE ?", Integer.class,
						holder, "%" + table + "%") > 0);
			}
			if (context.redeliveryCount() == 0) {
				throw new IllegalStateException("first attempt fails");
			}
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-first-fails", 300));
		List<InboxOutcome> outcomes = processTwiceAtOnce(processor(0), consumer, message);
		long failedAttempts = redeliveryCounts.stream().filter((count) -> count == 0).count();
		assertThat(failedAttempts).isBetween(1L, 2L);
		assertThat(outcomes).allMatch((outcome) -> outcome == InboxOutcome.RETRY_SCHEDULED
				|| outcome == InboxOutcome.PROCESSED);
		assertThat(outcomes.stream().filter((outcome) -> outcome == InboxOutcome.RETRY_SCHEDULED).count())
			.as("a retry for each failed attempt, %s", redeliveryCounts).isEqualTo(failedAttempts);
		assertThat(inbox.inboxRow(UUID.fromString(message.messageId()), queue)).containsEntry("attempts",
				(int) failedAttempts);
		assertThat(inbox.outboxMessages(queue)).as("a redelivery for each failed attempt").hasSize((int) failedAttempts);
	}

	@Test
	void aHandlerThatFailsTwiceIsRedeliveredWithBackoffThenProcessed() throws InterruptedException {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		AtomicInteger redeliveryCount = new AtomicInteger(-1);
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			if (calls.incrementAndGet() <= 2) {
				throw new IllegalStateException("card declined " + calls.get());
			}
			redeliveryCount.set(context.redeliveryCount());
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-4", 400));
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = processor(0);
		clearWakeUp();

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		assertThat(inbox.wakeUp().await(Duration.ZERO)).as("relay woken").isTrue();
		Map<String, Object> first = single(inbox.outboxMessages(queue));
		assertRedelivery(first, message, queue, 1);
		assertThat((double) first.get("delay_seconds")).isEqualTo(60.0);
		assertThat(inbox.inboxRow(id, queue)).containsEntry("attempts", 1)
			.containsEntry("processed_at", null)
			.containsEntry("faulted_at", null)
			.containsEntry("last_error", "java.lang.IllegalStateException: card declined 1");

		InboundMessage redelivery = redelivered(first, queue);
		assertThat(processor.process(consumer, redelivery)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		List<Map<String, Object>> redeliveries = inbox.outboxMessages(queue);
		assertThat(redeliveries).hasSize(2);
		assertRedelivery(redeliveries.get(1), message, queue, 2);
		assertThat((double) redeliveries.get(1).get("delay_seconds")).isEqualTo(120.0);

		assertThat(processor.process(consumer, redelivered(redeliveries.get(1), queue))).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(redeliveryCount).hasValue(2);
		assertThat(calls).hasValue(3);
		assertThat(inbox.inboxRow(id, queue).get("processed_at")).isNotNull();
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();
	}

	@Test
	void aRedeliveryFallsDueByTheDatabasesClockHoweverSkewedTheConsumerHostsClockIs() {
		// README: retries use the database clock. A consumer host 2 h ahead delayed every redelivery
		// by 2 h; one 5 min behind made it due at once, so all attempts ran back to back.
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class,
				(message, context) -> {
					throw new IllegalStateException("card declined");
				});
		for (Duration skew : List.of(Duration.ofHours(2), Duration.ofMinutes(-5))) {
			InboxProcessor processor = new InboxProcessor(inbox.resources(),
					inbox.settings(INTERVAL, 3, 0).withClock(Clock.offset(Clock.systemUTC(), skew)));
			assertThat(processor.process(consumer, TestInbox.inbound(new ChargeCard("o-skew" + skew, 100))))
				.isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		}
		List<Double> dueInSeconds = jdbc.queryForList("SELECT extract(epoch FROM s.next_attempt_at - now())::float8 FROM "
				+ schema.tables().qualifiedOutboxState() + " s JOIN " + schema.tables().qualifiedOutboxMessage()
				+ " m ON m.outbox_id = s.id WHERE m.routing_key = ? ORDER BY m.sequence_number", Double.class, queue);
		// the first retry waits INTERVAL (60 s) from the database's now
		assertThat(dueInSeconds).hasSize(2).allSatisfy((dueIn) -> assertThat(dueIn).isBetween(30.0, 61.0));
	}

	@Test
	void aHandlerThatSwallowsAFailedStatementFailsItselfNotTheInbox() {
		// What a JPA handler does when it catches the exception of a failed saveAndFlush: PostgreSQL
		// has aborted the transaction, and the handler returns normally.
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
			try {
				jdbc.update("INSERT INTO " + schema.name() + ".charges (order_id, message_id) VALUES (NULL, ?)",
						context.messageId());
			}
			catch (DataAccessException ex) {
				// swallowed
			}
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-swallowed", 100));
		UUID id = UUID.fromString(message.messageId());

		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);

		assertThat(calls).as("the handler ran once, not once per try to record").hasValue(1);
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();
		assertThat(single(inbox.outboxMessages(queue))).isNotNull();
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row).containsEntry("attempts", 1).containsEntry("processed_at", null).containsEntry("faulted_at", null);
		assertThat((String) row.get("last_error")).contains("25P02");
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".charges WHERE order_id = 'o-swallowed'",
				Integer.class)).isZero();
	}

	@Test
	void aHandlerThatMarksItsTransactionRollbackOnlyFailsItself() {
		// A JPA repository call that failed and was caught marks the transaction rollback-only.
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		// marking rollback-only through a participating transaction
		ConsumerRegistration<ChargeCard> marking = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
			new TransactionTemplate(inbox.transactions().getTransactionManager())
				.executeWithoutResult((status) -> status.setRollbackOnly());
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-rollback-only", 100));
		UUID id = UUID.fromString(message.messageId());

		assertThat(processor(0).process(marking, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);

		assertThat(calls).hasValue(1);
		assertThat(inbox.inboxRow(id, queue)).containsEntry("attempts", 1).containsEntry("processed_at", null);
	}

	@Test
	void aHandlerThatAlwaysFailsGoesToTheErrorQueueAtMaxAttempts() throws InterruptedException {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("card declined", new IOException("gateway timeout"));
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-5", 500));
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = processor(0); // 3 attempts

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		assertThat(processor.process(consumer, redelivered(inbox.outboxMessages(queue).get(0), queue)))
			.isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		clearWakeUp();
		assertThat(processor.process(consumer, redelivered(inbox.outboxMessages(queue).get(1), queue)))
			.isEqualTo(InboxOutcome.FAULTED);

		assertThat(calls).hasValue(3);
		assertThat(inbox.wakeUp().await(Duration.ZERO)).as("relay woken").isTrue();
		assertThat(inbox.outboxMessages(queue)).hasSize(2);
		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		assertThat(error).containsEntry("message_id", id)
			.containsEntry("destination", "")
			.containsEntry("message_type", "test.charge-card")
			.containsEntry("content_type", "application/json")
			.containsEntry("conversation_id", "conv-1")
			.containsEntry("not_before", null)
			.containsEntry("inbound_message_id", id)
			.containsEntry("consumer_id", queue);
		assertThat((byte[]) error.get("body")).isEqualTo(message.body());
		Map<String, Object> headers = headers(error);
		assertThat(headers).containsEntry(InboxHeaders.FAULT_EXCEPTION_TYPE, "java.lang.IllegalStateException")
			.containsEntry(InboxHeaders.FAULT_MESSAGE, "card declined")
			.containsEntry(InboxHeaders.FAULT_ATTEMPTS, 3)
			.containsEntry(InboxHeaders.ORIGINAL_EXCHANGE, "test.charge-card")
			.containsEntry(InboxHeaders.ORIGINAL_ROUTING_KEY, "")
			.containsEntry("tenant", "acme")
			.doesNotContainKey(InboxHeaders.FAULT_REASON);
		String trace = (String) headers.get(InboxHeaders.FAULT_STACK_TRACE);
		assertThat(trace).startsWith("java.lang.IllegalStateException: card declined\n\tat ")
			.contains(InboxProcessorIntegrationTests.class.getName())
			.endsWith("Caused by: java.io.IOException: gateway timeout");
		assertThat(trace.split("\n\tat ", -1)).hasSize(11);
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row).containsEntry("attempts", 3).containsEntry("processed_at", null).containsEntry("receive_count", 3);
		assertThat(row.get("faulted_at")).isNotNull();
		assertThat((String) row.get("last_error")).contains("card declined");
	}

	@Test
	void whatAFailingHandlerPublishedAndWroteIsRolledBack() {
		String queue = queue();
		AtomicReference<UUID> published = new AtomicReference<>();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			charge(message, context);
			published.set(context.publish(new CardCharged(message.order())));
			throw new IllegalStateException("ledger unavailable");
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-6", 600));

		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);

		assertThat(published.get()).isNotNull();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedOutboxMessage()
				+ " WHERE message_id = ?", Integer.class, published.get())).isZero();
		assertThat(inbox.publishedWhileHandling(UUID.fromString(message.messageId()))).isEmpty();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".charges WHERE order_id = 'o-6'",
				Integer.class)).isZero();
		assertThat(inbox.outboxMessages(queue)).hasSize(1);
	}

	@Test
	void whatAHandlerPublishesIsTiedToTheInboundMessageAndCorrelatedWithIt() {
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			context.publish(new CardCharged(message.order()));
			context.send("billing", new CardCharged(message.order()));
			context.publish(new CardCharged(message.order()), (options) -> options.correlationId("mine"));
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-7", 700));
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = processor(0);

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);

		List<Map<String, Object>> published = inbox.publishedWhileHandling(id);
		assertThat(published).extracting((row) -> row.get("destination"))
			.containsExactly("test.card-charged", "billing", "test.card-charged");
		assertThat(published).allSatisfy((row) -> assertThat(row).containsEntry("inbound_message_id", id)
			.containsEntry("consumer_id", queue)
			.containsEntry("conversation_id", "conv-1"));
		assertThat(published).extracting((row) -> row.get("correlation_id"))
			.containsExactly(id.toString(), id.toString(), "mine");

		InboundMessage withoutConversation = new InboundMessage(UUID.randomUUID().toString(), message.messageType(),
				message.contentType(), Map.of(), message.body(), null, null, message.exchange(), "");
		assertThat(processor.process(consumer, withoutConversation)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(inbox.publishedWhileHandling(UUID.fromString(withoutConversation.messageId())))
			.extracting((row) -> row.get("conversation_id"))
			.containsOnly(withoutConversation.messageId());
	}

	@Test
	void aMessageWithoutIdGoesToTheErrorQueueAtOnceWithoutInboxRow() {
		String queue = queue();
		InboundMessage message = TestInbox.altered(TestInbox.inbound(new ChargeCard("o-8", 800)), null,
				"test.charge-card", "{\"order\":\"o-8\",\"cents\":800}");

		assertThat(processor(0).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		assertThat(headers(error)).containsEntry(InboxHeaders.FAULT_REASON, "the message has no message id")
			.containsEntry(InboxHeaders.FAULT_ATTEMPTS, 1)
			.doesNotContainKey(InboxHeaders.ORIGINAL_MESSAGE_ID);
		assertThat(error).containsEntry("inbound_message_id", null).containsEntry("consumer_id", null);
		assertThat(inboxRows(queue)).isZero();
	}

	@Test
	void aMessageWhoseIdIsNoUuidGoesToTheErrorQueueAtOnceWithoutInboxRow() {
		String queue = queue();
		InboundMessage message = TestInbox.altered(TestInbox.inbound(new ChargeCard("o-9", 900)), "order-9",
				"test.charge-card", "{\"order\":\"o-9\",\"cents\":900}");

		assertThat(processor(0).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		assertThat(headers(error)).containsEntry(InboxHeaders.FAULT_REASON, "message id 'order-9' is not a UUID")
			.containsEntry(InboxHeaders.ORIGINAL_MESSAGE_ID, "order-9");
		assertThat(((UUID) error.get("message_id")).version()).isEqualTo(7);
		assertThat(inboxRows(queue)).isZero();
	}

	@Test
	void aMessageWithoutATypeGoesToTheErrorQueueAtOnceSayingSo() {
		String queue = queue();
		InboundMessage typed = TestInbox.inbound(new ChargeCard("o-untyped", 100));
		InboundMessage message = new InboundMessage(typed.messageId(), null, typed.contentType(), typed.headers(),
				typed.body(), null, null, typed.exchange(), typed.routingKey());

		assertThat(processor(0).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		// Not "no handler for type 'null'": the sender left the type out.
		assertThat(headers(error)).containsEntry(InboxHeaders.FAULT_REASON,
				"the message has no type (AMQP property 'type'); queue '" + queue + "' handles 'test.charge-card'");
	}

	@Test
	void aMessageOfAnotherTypeGoesToTheErrorQueueAtOnce() {
		String queue = queue();
		InboundMessage message = TestInbox.inbound(new CardCharged("o-10"));
		UUID id = UUID.fromString(message.messageId());

		assertThat(processor(0).process(neverCalled(queue), message)).isEqualTo(InboxOutcome.FAULTED);

		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		assertThat(error).containsEntry("message_id", id).containsEntry("message_type", "test.card-charged");
		assertThat(headers(error)).containsEntry(InboxHeaders.FAULT_REASON,
				"no handler for type 'test.card-charged' on queue '" + queue + "'; it handles 'test.charge-card'");
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row).containsEntry("attempts", 1).containsEntry("processed_at", null);
		assertThat(row.get("faulted_at")).isNotNull();
	}

	@Test
	void aBodyThatCannotBeReadGoesToTheErrorQueueAtOnce() {
		String queue = queue();
		InboxProcessor processor = processor(0);
		for (String body : List.of("{\"order\": ", "null")) {
			InboundMessage message = TestInbox.altered(TestInbox.inbound(new ChargeCard("o-11", 1100)),
					UUID.randomUUID().toString(), "test.charge-card", body);
			UUID id = UUID.fromString(message.messageId());

			assertThat(processor.process(neverCalled(queue), message)).as(body).isEqualTo(InboxOutcome.FAULTED);

			assertThat(inbox.inboxRow(id, queue).get("faulted_at")).as(body).isNotNull();
		}
		List<Map<String, Object>> errors = inbox.outboxMessages(queue + "_error");
		assertThat(errors).hasSize(2).allSatisfy((error) -> assertThat(headers(error)).containsEntry(
				InboxHeaders.FAULT_REASON, "the body cannot be read as " + ChargeCard.class.getName()
						+ " (content type 'application/json')"));
		assertThat(headers(errors.get(0))).containsKeys(InboxHeaders.FAULT_EXCEPTION_TYPE, InboxHeaders.FAULT_STACK_TRACE);
	}

	@Test
	void immediateRetriesRunInProcessBeforeARedeliveryIsScheduled() {
		String queue = queue();
		List<Integer> tries = new CopyOnWriteArrayList<>();
		ConsumerRegistration<ChargeCard> flaky = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			tries.add(context.retryAttempt());
			charge(message, context);
			if (tries.size() <= 2) {
				throw new IllegalStateException("optimistic lock lost");
			}
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-12", 1200));
		InboxProcessor processor = processor(2);

		assertThat(processor.process(flaky, message)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(tries).containsExactly(0, 1, 2);
		assertThat(inbox.inboxRow(UUID.fromString(message.messageId()), queue)).containsEntry("attempts", 0)
			.containsEntry("receive_count", 1);
		assertThat(inbox.outboxMessages(queue)).isEmpty();

		String failingQueue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> failing = ConsumerRegistration.of(failingQueue, ChargeCard.class,
				(payload, context) -> {
					calls.incrementAndGet();
					throw new IllegalStateException("still failing");
				});
		InboundMessage other = TestInbox.inbound(new ChargeCard("o-13", 1300));
		assertThat(processor.process(failing, other)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		assertThat(calls).hasValue(3);
		assertThat(inbox.inboxRow(UUID.fromString(other.messageId()), failingQueue)).containsEntry("attempts", 1);
		assertThat(inbox.outboxMessages(failingQueue)).hasSize(1);
	}

	@Test
	void aDatabaseOutageIsThrownWithoutRecordingAnAttempt() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			throw new DataAccessResourceFailureException("connection reset");
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-14", 1400));

		assertThatExceptionOfType(DataAccessResourceFailureException.class)
			.isThrownBy(() -> processor(2).process(consumer, message))
			.withMessage("connection reset");
		assertThat(calls).hasValue(1);
		assertThat(inbox.inboxRow(UUID.fromString(message.messageId()), queue)).isNull();
		assertThat(inbox.outboxMessages(queue)).isEmpty();
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();

		DriverManagerDataSource unreachable = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/test");
		InboxProcessor cutOff = new InboxProcessor(new InboxResources(new DataSourceTransactionManager(unreachable),
				inbox.store(), inbox.writer(), inbox.publisher(), inbox.consumerOutbox(), TestOutbox.serializer(),
				inbox.wakeUp()), InboxSettings.of(RetryPolicy.defaults(), 0));
		assertThatExceptionOfType(CannotCreateTransactionException.class)
			.isThrownBy(() -> cutOff.process(consumer, message));
		assertThat(calls).hasValue(1);
	}

	@Test
	void aFaultedMessageDeliveredAgainIsAcknowledgedWithoutHandlerOrSecondFaultUntilItsFaultIsCleared() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		AtomicBoolean declining = new AtomicBoolean(true);
		AtomicInteger redeliveryCount = new AtomicInteger(-1);
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			if (declining.get()) {
				throw new IllegalStateException("card declined");
			}
			redeliveryCount.set(context.redeliveryCount());
			charge(message, context);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-faulted", 1500));
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = inbox.processor(INTERVAL, 1, 0);

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.FAULTED);
		assertThat(processor.process(consumer, message)).as("a broker duplicate").isEqualTo(InboxOutcome.ALREADY_FAULTED);
		declining.set(false);
		assertThat(processor.process(consumer, message)).as("a handler that would succeed now")
			.isEqualTo(InboxOutcome.ALREADY_FAULTED);

		assertThat(calls).hasValue(1);
		assertThat(inbox.outboxMessages(queue + "_error")).hasSize(1);
		Map<String, Object> row = inbox.inboxRow(id, queue);
		assertThat(row).containsEntry("attempts", 1).containsEntry("processed_at", null).containsEntry("receive_count", 3);
		assertThat(row.get("faulted_at")).isNotNull();

		InboxAdmin admin = new JdbcInboxAdmin(inbox.transactions().getTransactionManager(), inbox.store());
		assertThat(admin.clearFault(id, queue)).isTrue();
		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(calls).hasValue(2);
		assertThat(redeliveryCount).as("new work: its attempts start again").hasValue(0);
		row = inbox.inboxRow(id, queue);
		assertThat(row).containsEntry("faulted_at", null).containsEntry("last_error", "java.lang.IllegalStateException: card declined");
		assertThat(row.get("processed_at")).isNotNull();
		assertThat(admin.clearFault(id, queue)).as("a processed message has no fault").isFalse();
		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.DUPLICATE);
		assertThat(inbox.outboxMessages(queue + "_error")).hasSize(1);
	}

	@Test
	void aCopyWhoseHandlerFailsAfterAnotherCopyFaultedTheMessageIsNotFaultedTwice() throws Exception {
		String queue = queue();
		JdbcTemplate monitor = new JdbcTemplate(new DelegatingDataSource(schema.dataSource()));
		String table = schema.tables().qualifiedInboxState();
		UUID[] id = new UUID[1];
		CountDownLatch inHandler = new CountDownLatch(1);
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			inHandler.countDown();
			// Hold the row until the other copy's fault waits for it, then fail as it did.
			// (the other copy's recordFailure, by its own statement: nothing else that waits counts)
			await().atMost(Duration.ofSeconds(20)).until(() -> monitor.queryForObject("SELECT count(*) FROM "
					+ "pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE ?",
					Integer.class, "%" + table + " AS inbox (message_id, consumer_id, attempts, last_error%") > 0);
			throw new IllegalStateException("card declined");
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-raced", 1600));
		id[0] = UUID.fromString(message.messageId());
		InboxProcessor processor = inbox.processor(INTERVAL, 1, 0);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<InboxOutcome> copy = threads.submit(() -> processor.process(consumer, message));
			// In its handler, the copy holds its inbox row, inserted but not committed: invisible.
			assertThat(inHandler.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(monitor.queryForObject("SELECT count(*) FROM " + table + " WHERE message_id = ?", Integer.class,
					id[0])).isZero();
			// The other copy failed earlier; its fault is recorded while this one is in its handler.
			Future<InboxStore.Failure> otherFault = threads.submit(() -> inbox.transactions()
				.execute((status) -> inbox.store().recordFailure(id[0], queue, "card declined (other copy)", 1)));
			InboxStore.Failure other = otherFault.get(30, TimeUnit.SECONDS);
			InboxOutcome outcome = copy.get(30, TimeUnit.SECONDS);
			// Once the copy's handler fails, its insert rolls back and both faults race for the row:
			// the other's waiting statement usually goes first, but the copy's new transaction may.
			// Either way one of them records the fault and the other finds it recorded.
			Map<String, Object> row = inbox.inboxRow(id[0], queue);
			assertThat(row).containsEntry("attempts", 1).containsEntry("processed_at", null);
			if (other.recorded()) {
				assertThat(other).isEqualTo(new InboxStore.Failure(true, false, true, 1));
				assertThat(outcome).isEqualTo(InboxOutcome.ALREADY_FAULTED);
				assertThat(row).containsEntry("last_error", "card declined (other copy)");
				assertThat(inbox.outboxMessages(queue + "_error")).as("no second copy on the error queue").isEmpty();
			}
			else {
				assertThat(other).isEqualTo(new InboxStore.Failure(false, false, true, 1));
				assertThat(outcome).isEqualTo(InboxOutcome.FAULTED);
				assertThat((String) row.get("last_error")).contains("card declined").doesNotContain("other copy");
				assertThat(inbox.outboxMessages(queue + "_error")).as("the copy's own fault, once").hasSize(1);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aBackendTerminatedUnderTheHandlerCostsNoAttemptAndTheRetryIsProcessedOnce(CapturedOutput output) {
		for (boolean handlerHidesTheCause : List.of(false, true)) {
			String queue = queue();
			AtomicInteger calls = new AtomicInteger();
			ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
				if (calls.incrementAndGet() == 1) {
					terminate(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
					try {
						charge(message, context);
					}
					catch (RuntimeException ex) {
						if (handlerHidesTheCause) {
							throw new IllegalStateException("the payment could not be saved");
						}
						throw ex;
					}
					throw new AssertionError("the terminated backend answered");
				}
				charge(message, context);
			});
			InboundMessage message = TestInbox.inbound(new ChargeCard("o-terminated-" + handlerHidesTheCause, 1700));

			assertNoAttemptThenProcessedOnce(consumer, message, calls);
		}
		// An expected outage: the failed rollback is not an ERROR with a stack trace.
		assertThat(output.getAll()).contains("FATAL: terminating connection")
			.doesNotContain("ERROR").doesNotContain("overridden by rollback exception");
	}

	@Test
	void aBackendTerminatedDuringTheCommitCostsNoAttemptAndTheRetryIsProcessedOnce() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			charge(message, context);
			if (calls.incrementAndGet() == 1) {
				int pid = jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
					@Override
					public void beforeCommit(boolean readOnly) {
						terminate(pid);
					}
				});
			}
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-commit", 1800));

		assertNoAttemptThenProcessedOnce(consumer, message, calls);
	}

	@Test
	void aDeliveryWhoseInboxRowTheDatabaseRefusesGoesToTheErrorQueueAfterBoundedTries() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-refused", 1900));
		UUID id = UUID.fromString(message.messageId());
		refuse(id, schema.tables().qualifiedInboxState());
		InboxProcessor processor = processor(0);
		long refusals = refusals();

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.FAULTED);

		assertThat(calls).as("the handler never ran without its inbox row").hasValue(0);
		assertThat(inbox.inboxRow(id, queue)).isNull();
		Map<String, Object> error = single(inbox.outboxMessages(queue + "_error"));
		assertThat(error).containsEntry("message_id", id).containsEntry("inbound_message_id", null);
		assertThat((byte[]) error.get("body")).isEqualTo(message.body());
		assertThat((String) headers(error).get(InboxHeaders.FAULT_REASON))
			.startsWith("Waybill could not record the delivery in its inbox: ")
			.contains("refused by the test trigger");
		assertThat(headers(error)).containsEntry("tenant", "acme");
		assertThat(refusals() - refusals).as("tries before the last resort").isEqualTo(Recording.TRIES);

		// A copy finds no row either: it is moved again, never requeued forever.
		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.FAULTED);
		assertThat(inbox.outboxMessages(queue + "_error")).hasSize(2);
	}

	@Test
	void aStatementTimeoutOnTheInboxRowIsAnOutageNotTheMessagesFailure() {
		// A soak held LOCK TABLE inbox_state for 20 s under statement_timeout = 2s: each try of the
		// inbox insert was cancelled (57014) and healthy messages went to the error queue, with no
		// inbox row and no attempt of their handler. Contention is the database's state, as an outage.
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-timeout", 2100));
		UUID id = UUID.fromString(message.messageId());
		String inboxState = schema.tables().qualifiedInboxState();
		String trigger = "time_out_" + queue.replace('-', '_');
		jdbc.execute("CREATE OR REPLACE FUNCTION " + schema.name() + ".time_out() RETURNS trigger LANGUAGE plpgsql AS $$ "
				+ "BEGIN RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = 'query_canceled'; "
				+ "END $$");
		jdbc.execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + inboxState + " FOR EACH ROW WHEN (NEW.consumer_id = '"
				+ queue + "') EXECUTE FUNCTION " + schema.name() + ".time_out()");
		InboxProcessor processor = processor(0);
		try {
			assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> processor.process(consumer, message));
		}
		finally {
			jdbc.execute("DROP TRIGGER " + trigger + " ON " + inboxState);
		}

		assertThat(inbox.inboxRow(id, queue)).isNull();
		assertAnOutageCostNothing(processor, consumer, message, calls);
	}

	@Test
	void aMissingInboxTableIsAnOutageNotTheMessagesFailure() {
		// A newcomer's trial: with the schema never applied (Liquibase left off the class path), the
		// consumers sent healthy messages to the error queue, "Recording message ... failed".
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			charge(message, context);
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-no-table", 2200));
		String inboxState = schema.tables().qualifiedInboxState();
		InboxProcessor processor = processor(0);
		jdbc.execute("ALTER TABLE " + inboxState + " RENAME TO inbox_state_away");
		try {
			assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> processor.process(consumer, message))
				.havingRootCause()
				.withMessageContaining("does not exist");
		}
		finally {
			jdbc.execute("ALTER TABLE " + schema.name() + ".inbox_state_away RENAME TO "
					+ inboxState.substring(inboxState.lastIndexOf('.') + 1));
		}

		assertAnOutageCostNothing(processor, consumer, message, calls);
	}

	/**
	 * After a delivery that failed with an outage: its handler never ran, nothing went to the error
	 * queue, and once the database is back it is processed with no attempt counted.
	 */
	private static void assertAnOutageCostNothing(InboxProcessor processor, ConsumerRegistration<ChargeCard> consumer,
			InboundMessage message, AtomicInteger calls) {
		UUID id = UUID.fromString(message.messageId());
		String queue = consumer.queue();
		assertThat(calls).hasValue(0);
		assertThat(inbox.outboxMessages(queue + "_error")).as("not the message's failure").isEmpty();
		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(calls).hasValue(1);
		assertThat(inbox.inboxRow(id, queue)).containsEntry("attempts", 0).containsEntry("faulted_at", null);
	}

	@Test
	void aDeliveryOfWhichTheDatabaseRefusesEverythingIsHandedToTheTransportForItsErrorQueue() {
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("card declined");
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-unrecordable", 2000));
		UUID id = UUID.fromString(message.messageId());
		refuse(id, schema.tables().qualifiedInboxState());
		refuse(id, schema.tables().qualifiedOutboxMessage());
		long refusals = refusals();

		assertThatExceptionOfType(UnrecordableDeliveryException.class)
			.isThrownBy(() -> processor(0).process(consumer, message))
			.satisfies((ex) -> assertThat(ex.reason()).startsWith("Waybill could not record the delivery in its inbox: ")
				.contains("refused by the test trigger"));
		assertThat(calls).hasValue(0);
		assertThat(inbox.inboxRow(id, queue)).isNull();
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();
		assertThat(refusals() - refusals).isEqualTo(2 * Recording.TRIES);

		// The handler's own failure: recording it is refused too.
		jdbc.update("DELETE FROM " + schema.name() + ".refused WHERE message_id = ? AND table_name = 'inbox_state'", id);
		assertThatExceptionOfType(UnrecordableDeliveryException.class)
			.isThrownBy(() -> processor(0).process(consumer, message));
		assertThat(calls).hasValue(1);
	}

	@Test
	void aTypeNoConsumerOfTheQueueHandlesIsFaultedNamingEveryTypeTheQueueTakes() {
		String queue = queue();
		ConsumerRegistration<ChargeCard> charges = neverCalled(queue);
		ConsumerRegistration<Refund> refunds = ConsumerRegistration.of(queue, Refund.class, (message, context) -> {
			throw new AssertionError("the handler of a poison message ran");
		});
		InboxProcessor processor = processor(0);
		processor.describeQueues(ConsumerRegistry.of(List.of(charges, refunds)));
		InboundMessage sent = TestInbox.inbound(new ChargeCard("o-typo", 1));
		InboundMessage message = TestInbox.altered(sent, sent.messageId(), "test.chrage-card", "{}");

		assertThat(processor.process(charges, message)).isEqualTo(InboxOutcome.FAULTED);

		assertThat((String) headers(single(inbox.outboxMessages(queue + "_error"))).get(InboxHeaders.FAULT_REASON))
			.isEqualTo("no handler for type 'test.chrage-card' on queue '" + queue + "'; it handles '"
					+ charges.messageType() + "', '" + refunds.messageType() + "'");
	}

	@Test
	void aSubtypeAnInterfaceHandlerCannotReadIsFaultedSayingWhyItsSupertypesHandlerDidNotTakeIt() {
		String queue = queue();
		ConsumerRegistration<PaymentEvent> events = ConsumerRegistration.of(queue, PaymentEvent.class,
				(message, context) -> {
					throw new AssertionError("the handler of a poison message ran");
				});
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(events));
		InboxProcessor processor = processor(0);
		processor.describeQueues(registry);
		// A producer of a newer version publishes a subtype this consumer has no class of.
		InboundMessage sent = TestInbox.inbound(new CardCharged("o-sub"));
		Map<String, Object> headers = new HashMap<>(sent.headers());
		headers.put(MessageTypes.SUPERTYPES_HEADER, "test.payment-event");
		InboundMessage message = new InboundMessage(sent.messageId(), "test.payment-refused", sent.contentType(),
				headers, sent.body(), null, null, sent.exchange(), sent.routingKey());
		ConsumerRegistration<?> dispatched = registry.dispatch(queue, message.messageType(), "test.payment-event");

		assertThat(processor.process(dispatched, message)).isEqualTo(InboxOutcome.FAULTED);

		// It said only "no handler for type 'test.payment-refused' on queue ...; it handles
		// 'test.payment-event'", though the message names that type as its supertype.
		assertThat((String) headers(single(inbox.outboxMessages(queue + "_error"))).get(InboxHeaders.FAULT_REASON))
			.isEqualTo("no handler for type 'test.payment-refused' on queue '" + queue + "'; it handles "
					+ "'test.payment-event', its supertype 'test.payment-event' as " + PaymentEvent.class.getName()
					+ ", an interface or abstract class the body cannot be read into without a class of type "
					+ "'test.payment-refused', and this service has none (add that class, or make the handler's "
					+ "type concrete)");
	}

	@Test
	void faultHeadersASenderPutOnTheMessageDoNotReachTheErrorQueue() {
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			throw new IllegalStateException("card declined");
		});
		Map<String, Object> spoofed = new java.util.LinkedHashMap<>();
		for (String header : List.of(InboxHeaders.FAULT_REASON, InboxHeaders.FAULT_EXCEPTION_TYPE,
				InboxHeaders.FAULT_MESSAGE, InboxHeaders.FAULT_STACK_TRACE, InboxHeaders.FAULT_ATTEMPTS,
				InboxHeaders.ORIGINAL_MESSAGE_ID, InboxHeaders.ORIGINAL_EXCHANGE, InboxHeaders.ORIGINAL_ROUTING_KEY,
				InboxHeaders.REDELIVERY_COUNT)) {
			spoofed.put(header, "SPOOF");
		}
		spoofed.put("tenant", "acme");
		InboundMessage sent = TestInbox.inbound(new ChargeCard("o-spoof", 2400));
		InboundMessage message = new InboundMessage(sent.messageId(), sent.messageType(), sent.contentType(), spoofed,
				sent.body(), null, null, "orders", "eu.card");

		assertThat(inbox.processor(INTERVAL, 1, 0).process(consumer, message)).isEqualTo(InboxOutcome.FAULTED);

		Map<String, Object> headers = headers(single(inbox.outboxMessages(queue + "_error")));
		assertThat(headers).doesNotContainKeys(InboxHeaders.FAULT_REASON, InboxHeaders.ORIGINAL_MESSAGE_ID,
				InboxHeaders.REDELIVERY_COUNT);
		assertThat(headers).containsEntry(InboxHeaders.FAULT_EXCEPTION_TYPE, IllegalStateException.class.getName())
			.containsEntry(InboxHeaders.FAULT_MESSAGE, "card declined")
			.containsEntry(InboxHeaders.FAULT_ATTEMPTS, 1)
			.containsEntry(InboxHeaders.ORIGINAL_EXCHANGE, "orders")
			.containsEntry(InboxHeaders.ORIGINAL_ROUTING_KEY, "eu.card")
			.containsEntry("tenant", "acme");
		assertThat((String) headers.get(InboxHeaders.FAULT_STACK_TRACE)).startsWith("java.lang.IllegalStateException");
	}

	@Test
	void aHandlerFailingOnADatabaseLimitCostsAnAttemptInsteadOfLoopingAsAnOutage() {
		jdbc.execute("CREATE TABLE IF NOT EXISTS " + schema.name() + ".accounts (customer text PRIMARY KEY)");
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class,
				(message, context) -> jdbc.update("INSERT INTO " + schema.name() + ".accounts (customer) VALUES (?)",
						message.order()));
		// Too long for a B-tree entry: PostgreSQL refuses it with SQLState 54000, which Spring
		// translates as a DataAccessResourceFailureException.
		StringBuilder customer = new StringBuilder();
		java.util.Random random = new java.util.Random(54);
		for (int i = 0; i < 10_000; i++) {
			customer.append((char) ('a' + random.nextInt(26)));
		}
		InboundMessage message = TestInbox.inbound(new ChargeCard(customer.toString(), 2300));

		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		Map<String, Object> row = inbox.inboxRow(UUID.fromString(message.messageId()), queue);
		assertThat(row).containsEntry("attempts", 1);
		assertThat((String) row.get("last_error")).contains("index row");
	}

	@Test
	void aHandlerHoldingItsTransactionIdlePastTheDatabasesTimeoutCostsAnAttemptInsteadOfLoopingAsAnOutage() {
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			// as a DBA's ALTER ROLE ... SET idle_in_transaction_session_timeout, for this transaction
			jdbc.execute("SET LOCAL idle_in_transaction_session_timeout = '200ms'");
			Thread.sleep(1000); // a call to another service, inside the transaction
		});
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-idle", 2400));

		// Before, PostgreSQL's ending the connection was an outage: redelivered in place for ever.
		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		Map<String, Object> row = inbox.inboxRow(UUID.fromString(message.messageId()), queue);
		assertThat(row).containsEntry("attempts", 1);
		assertThat((String) row.get("last_error")).contains("idle-in-transaction timeout");
	}

	@Test
	void aDatabaseThatTakesNoWritesIsAnOutageThatCostsNoAttemptAndSendsNothingToTheErrorQueue() {
		// As a demoted primary, or default_transaction_read_only set by an operator or a managed
		// service whose storage is full: every session's transactions are read-only.
		AtomicBoolean readOnly = new AtomicBoolean(true);
		TestInbox onIt = new TestInbox(schema, readOnlyWhile(readOnly));
		String queue = queue();
		AtomicInteger calls = new AtomicInteger();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			calls.incrementAndGet();
			onIt.jdbc().update("INSERT INTO " + schema.name() + ".charges (order_id, message_id) VALUES (?, ?)",
					message.order(), context.messageId());
		});
		InboundMessage alone = TestInbox.inbound(new ChargeCard("o-read-only", 2100));
		List<InboxDelivery> batch = List.of(new InboxDelivery(consumer, TestInbox.inbound(new ChargeCard("o-ro-1", 1))),
				new InboxDelivery(consumer, TestInbox.inbound(new ChargeCard("o-ro-2", 2))));
		InboxProcessor processor = onIt.processor(INTERVAL, 1, 0); // one attempt: a recorded one would fault

		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> processor.process(consumer, alone))
			.isNotInstanceOf(UnrecordableDeliveryException.class)
			.withMessageContaining("read-only transaction");
		assertThat(processor.processBatch(batch)).allSatisfy((result) -> {
			assertThat(result.acknowledge()).as("returned to the queue").isFalse();
			assertThat(result.unrecordable()).as("not for the error queue").isFalse();
		});
		assertThat(calls).hasValue(0);
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();

		readOnly.set(false);
		assertThat(processor.process(consumer, alone)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(processor.processBatch(batch)).extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.PROCESSED);
		assertThat(calls).hasValue(3);
		assertThat(inbox.inboxRow(UUID.fromString(alone.messageId()), queue)).containsEntry("attempts", 0);
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();
	}

	@Test
	void aHandlerWritingInAReadOnlyTransactionOfItsOwnFailsLikeAnyHandler() {
		AtomicBoolean readOnly = new AtomicBoolean(true);
		JdbcTemplate readOnlyJdbc = new JdbcTemplate(readOnlyWhile(readOnly));
		String queue = queue();
		ConsumerRegistration<ChargeCard> consumer = ConsumerRegistration.of(queue, ChargeCard.class,
				(message, context) -> readOnlyJdbc.update("INSERT INTO " + schema.name()
						+ ".charges (order_id, message_id) VALUES (?, ?)", message.order(), context.messageId()));
		InboundMessage message = TestInbox.inbound(new ChargeCard("o-own-read-only", 2200));

		assertThat(processor(0).process(consumer, message)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		assertThat(inbox.inboxRow(UUID.fromString(message.messageId()), queue)).containsEntry("attempts", 1);
	}

	/**
	 * A DataSource of the test database whose new sessions are read-only while {@code readOnly}
	 * holds, as PostgreSQL makes them with {@code default_transaction_read_only} on.
	 */
	private static DataSource readOnlyWhile(AtomicBoolean readOnly) {
		TestPostgres postgres = TestPostgres.get();
		DriverManagerDataSource writable = new DriverManagerDataSource(postgres.url(), postgres.user(), postgres.password());
		DriverManagerDataSource readOnlySessions = new DriverManagerDataSource(postgres.url(), postgres.user(),
				postgres.password());
		Properties options = new Properties();
		options.setProperty("options", "-c default_transaction_read_only=on");
		readOnlySessions.setConnectionProperties(options);
		return new DelegatingDataSource(writable) {

			@Override
			public Connection getConnection() throws SQLException {
				return readOnly.get() ? readOnlySessions.getConnection() : writable.getConnection();
			}

		};
	}

	private static void assertNoAttemptThenProcessedOnce(ConsumerRegistration<ChargeCard> consumer,
			InboundMessage message, AtomicInteger calls) {
		String queue = consumer.queue();
		UUID id = UUID.fromString(message.messageId());
		InboxProcessor processor = inbox.processor(INTERVAL, 1, 2); // one attempt: a recorded one would fault

		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> processor.process(consumer, message));

		assertThat(calls).as("no immediate retry on a lost connection").hasValue(1);
		assertThat(inbox.inboxRow(id, queue)).as("no attempt recorded").isNull();
		assertThat(inbox.outboxMessages(queue)).isEmpty();
		assertThat(inbox.outboxMessages(queue + "_error")).isEmpty();

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(calls).hasValue(2);
		assertThat(inbox.inboxRow(id, queue)).containsEntry("attempts", 0).containsEntry("faulted_at", null);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM " + schema.name() + ".charges WHERE message_id = ?",
				Integer.class, id)).isOne();
	}

	/**
	 * Terminates one backend, the caller's own, from another connection, and waits until it is gone.
	 */
	private static void terminate(int pid) {
		try (Connection connection = TestPostgres.get().connect()) {
			try (PreparedStatement terminate = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
				terminate.setInt(1, pid);
				terminate.execute();
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				try (PreparedStatement alive = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?")) {
					alive.setInt(1, pid);
					try (ResultSet result = alive.executeQuery()) {
						result.next();
						return result.getInt(1) == 0;
					}
				}
			});
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Makes the database refuse rows of {@code table} with the message id, as it refuses a value it
	 * cannot store, with an error that is not an outage.
	 */
	private static void refuse(UUID id, String table) {
		String refused = schema.name() + ".refused";
		String tableName = table.substring(table.indexOf('.') + 1);
		jdbc.execute("CREATE TABLE IF NOT EXISTS " + refused + " (message_id uuid, table_name text)");
		jdbc.execute("CREATE SEQUENCE IF NOT EXISTS " + schema.name() + ".refusals");
		// A sequence counts the refusals: unlike a row, it is not rolled back with them.
		jdbc.execute("CREATE OR REPLACE FUNCTION " + schema.name() + ".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
				+ "BEGIN IF EXISTS (SELECT 1 FROM " + refused + " WHERE message_id = NEW.message_id AND table_name = "
				+ "TG_TABLE_NAME) THEN PERFORM nextval('" + schema.name() + ".refusals'); "
				+ "RAISE EXCEPTION 'message % refused by the test trigger', NEW.message_id; END IF; RETURN NEW; END $$");
		String trigger = "refuse_" + tableName;
		jdbc.execute("DROP TRIGGER IF EXISTS " + trigger + " ON " + table);
		jdbc.execute("CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + table + " FOR EACH ROW EXECUTE FUNCTION "
				+ schema.name() + ".refuse()");
		jdbc.update("INSERT INTO " + refused + " (message_id, table_name) VALUES (?, ?)", id, tableName);
	}

	/** Returns the refusals of the test trigger so far, every message together. */
	private static long refusals() {
		return jdbc.queryForObject("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + schema.name()
				+ ".refusals", Long.class);
	}

	/** Processes one delivery on two threads at once; returns their outcomes, the first thread's first. */
	private static List<InboxOutcome> processTwiceAtOnce(InboxProcessor processor, ConsumerRegistration<?> consumer,
			InboundMessage message) throws Exception {
		CyclicBarrier start = new CyclicBarrier(2);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<InboxOutcome> first = threads.submit(() -> {
				start.await();
				return processor.process(consumer, message);
			});
			Future<InboxOutcome> second = threads.submit(() -> {
				start.await();
				return processor.process(consumer, message);
			});
			return List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static InboxProcessor processor(int immediateRetries) {
		return inbox.processor(INTERVAL, 3, immediateRetries);
	}

	private static String queue() {
		return "charge-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private static void charge(ChargeCard message, MessageContext context) {
		jdbc.update("INSERT INTO " + schema.name() + ".charges (order_id, message_id) VALUES (?, ?)", message.order(),
				context.messageId());
	}

	private static ConsumerRegistration<ChargeCard> neverCalled(String queue) {
		return ConsumerRegistration.of(queue, ChargeCard.class, (message, context) -> {
			throw new AssertionError("the handler of a poison message ran");
		});
	}

	private static void clearWakeUp() throws InterruptedException {
		inbox.wakeUp().await(Duration.ZERO);
	}

	private static int inboxRows(String queue) {
		return jdbc.queryForObject("SELECT count(*) FROM " + schema.tables().qualifiedInboxState()
				+ " WHERE consumer_id = ?", Integer.class, queue);
	}

	private static void assertHandledOnce(AtomicInteger calls, InboundMessage message, String queue, int receipts) {
		assertThat(calls).as("handler calls").hasValue(1);
		Map<String, Object> row = inbox.inboxRow(UUID.fromString(message.messageId()), queue);
		assertThat(row).containsEntry("receive_count", receipts);
		assertThat(row.get("processed_at")).isNotNull();
	}

	private static Map<String, Object> single(List<Map<String, Object>> rows) {
		assertThat(rows).hasSize(1);
		return rows.get(0);
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> headers(Map<String, Object> row) {
		return (Map<String, Object>) row.get("headers");
	}

	/**
	 * Asserts a redelivery: the same message, unchanged, to the consumer's queue through the default
	 * exchange, later, with the failed deliveries counted and where it was first published.
	 */
	private static void assertRedelivery(Map<String, Object> row, InboundMessage message, String queue, int count) {
		UUID id = UUID.fromString(message.messageId());
		assertThat(row).containsEntry("message_id", id)
			.containsEntry("destination", "")
			.containsEntry("routing_key", queue)
			.containsEntry("message_type", message.messageType())
			.containsEntry("content_type", message.contentType())
			.containsEntry("correlation_id", null)
			.containsEntry("conversation_id", "conv-1")
			.containsEntry("due_later", true)
			.containsEntry("inbound_message_id", id)
			.containsEntry("consumer_id", queue);
		assertThat((byte[]) row.get("body")).isEqualTo(message.body());
		assertThat(headers(row)).containsEntry(InboxHeaders.REDELIVERY_COUNT, count)
			.containsEntry(InboxHeaders.ORIGINAL_EXCHANGE, "test.charge-card")
			.containsEntry(InboxHeaders.ORIGINAL_ROUTING_KEY, "")
			.containsEntry("tenant", "acme");
	}

	/**
	 * Returns the delivery a redelivery row becomes: what the broker hands the endpoint when the
	 * relay publishes it to the default exchange.
	 */
	private static InboundMessage redelivered(Map<String, Object> row, String queue) {
		return new InboundMessage(row.get("message_id").toString(), (String) row.get("message_type"),
				(String) row.get("content_type"), headers(row), (byte[]) row.get("body"),
				(String) row.get("correlation_id"), (String) row.get("conversation_id"), "", queue);
	}

	@MessageType("test.charge-card")
	record ChargeCard(String order, int cents) {
	}

	@MessageType("test.refund")
	record Refund(String order) {
	}

	@MessageType("test.payment-event")
	interface PaymentEvent {
	}

	@MessageType("test.card-charged")
	record CardCharged(String order) {
	}

}
