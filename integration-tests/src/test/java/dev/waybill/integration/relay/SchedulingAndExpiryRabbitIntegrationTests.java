package dev.waybill.integration.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.ScheduledMessage;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestRelay;
import dev.waybill.outbox.test.TestSchema;

/**
 * Scheduled sends and message expiry end to end: the relay, PostgreSQL and a real broker.
 */
class SchedulingAndExpiryRabbitIntegrationTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	private TestSchema schema;

	private OutboxStore store;

	private TestTopology topology;

	private final RelayWakeUp wakeUp = new RelayWakeUp();

	private final AtomicInteger expired = new AtomicInteger();

	@BeforeEach
	void setUp() {
		this.schema = TestSchema.withWaybillTables("schedule");
		this.store = TestOutbox.on(this.schema).store();
		this.topology = TestRabbit.get().topology("schedule");
	}

	@AfterEach
	void tearDown() throws Exception {
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.topology.close();
		this.schema.close();
	}

	@Test
	void aCancelledSendIsNeverPublishedWhileTheOthersAreOnTime() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		startRelay();
		OutboxPublisher publisher = publisher();
		Instant due = Instant.now().plusMillis(1500);
		ScheduledMessage cancelled = inTransaction((OutboxPublisher p) -> p.scheduleSend(queue.exchange(), new Note("cancelled"), due, (o) -> {
		}));
		ScheduledMessage rolledBack = inTransaction((OutboxPublisher p) -> p.scheduleSend(queue.exchange(), new Note("kept"), due, (o) -> {
		}));
		// Due after the cancelled one: once it arrives, the cancelled one would have been published.
		ScheduledMessage later = inTransaction((OutboxPublisher p) -> p.scheduleSend(queue.exchange(), new Note("later"),
				due.plusMillis(300), (o) -> {
				}));

		assertThat(cancel(cancelled)).isTrue();
		new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource())).executeWithoutResult((status) -> {
			assertThat(publisher.cancel(rolledBack)).isTrue();
			status.setRollbackOnly();
		});

		List<Delivery> received = queue.next(2);
		assertThat(received).extracting((d) -> d.getProperties().getMessageId())
			.containsExactly(rolledBack.messageId().toString(), later.messageId().toString());
		assertThat(Instant.ofEpochMilli(System.currentTimeMillis())).isAfterOrEqualTo(due);
		assertThat(queue.drain()).as("the cancelled send never arrives").isEmpty();
		assertThat(status(cancelled)).isEqualTo("cancelled");
		await().until(() -> status(later).equals("published"));
		assertThat(cancel(later)).as("too late: it was sent").isFalse();
		assertThat(status(later)).isEqualTo("published");
	}

	@Test
	void aScheduledSendIsPublishedOnceWhenDue() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		startRelay();
		Instant due = Instant.now().plusMillis(1000);
		ScheduledMessage scheduled = inTransaction((OutboxPublisher p) -> p.scheduleSend(queue.exchange(), new Note("due"), due, (o) -> {
		}));

		Delivery delivery = queue.next();
		assertThat(Instant.now()).as("not before it was due").isAfterOrEqualTo(due);
		assertThat(delivery.getProperties().getMessageId()).isEqualTo(scheduled.messageId().toString());
		await().until(() -> status(scheduled).equals("published"));
		// A message sent after it arrives after it: had the scheduled one been sent twice, the copy
		// would be in the queue by then.
		inTransactionDo((p) -> p.send(queue.exchange(), new Note("sentinel")));
		assertThat(new String(queue.next().getBody(), StandardCharsets.UTF_8)).contains("sentinel");
		assertThat(queue.drain()).isEmpty();
	}

	@Test
	void aScheduledMessageDoesNotHoldBackTheOtherMessagesOfItsTransaction() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		startRelay();
		ScheduledMessage[] scheduled = new ScheduledMessage[1];
		List<UUID> sent = new ArrayList<>();
		inTransactionDo((p) -> {
			sent.add(p.send(queue.exchange(), new Note("first")));
			scheduled[0] = p.scheduleSend(queue.exchange(), new Note("tomorrow"), Instant.now().plus(Duration.ofDays(1)),
					(o) -> {
					});
			sent.add(p.send(queue.exchange(), new Note("second"), (o) -> o.header("k", "v")));
		});

		assertThat(queue.next(2)).extracting((d) -> d.getProperties().getMessageId())
			.containsExactly(sent.get(0).toString(), sent.get(1).toString());
		await().until(() -> jdbc().queryForObject("SELECT count(*) FROM " + this.schema.tables().qualifiedOutboxState()
				+ " WHERE status = 'published'", Integer.class) == 1);
		assertThat(status(scheduled[0])).isEqualTo("pending");
		assertThat(cancel(scheduled[0])).isTrue();
	}

	@Test
	void aMessageThatExpiresBeforeTheRelayGetsToItIsRecordedAsExpiredAndNotPublished() throws Exception {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		UUID stale = inTransaction((OutboxPublisher p) -> p.send(queue.exchange(), new Note("stale"),
				(o) -> o.timeToLive(Duration.ofMillis(200))));
		Instant expiresAt = jdbc().queryForObject("SELECT expires_at FROM " + this.schema.tables().qualifiedOutboxMessage()
				+ " WHERE message_id = ?", java.sql.Timestamp.class, stale).toInstant();
		await().until(() -> Instant.now().isAfter(expiresAt)); // no relay ran meanwhile

		startRelay();
		UUID fresh = inTransaction((OutboxPublisher p) -> p.send(queue.exchange(), new Note("fresh"), (o) -> o.timeToLive(Duration.ofMinutes(5))));

		Delivery delivery = queue.next();
		assertThat(delivery.getProperties().getMessageId()).isEqualTo(fresh.toString());
		assertThat(Long.parseLong(delivery.getProperties().getExpiration())).as("what is left of its time-to-live")
			.isPositive().isLessThanOrEqualTo(Duration.ofMinutes(5).toMillis());
		await().until(() -> scopeStatusOf(stale).equals("expired"));
		assertThat(jdbc().queryForObject("SELECT completed_at IS NOT NULL AND attempts = 1 AND lease_owner IS NULL FROM "
				+ this.schema.tables().qualifiedOutboxState() + " s JOIN " + this.schema.tables().qualifiedOutboxMessage()
				+ " m ON m.outbox_id = s.id WHERE m.message_id = ?", Boolean.class, stale)).isTrue();
		assertThat(this.expired).hasValue(1);
		assertThat(queue.drain()).isEmpty();
		assertThat(this.store.stats().pendingScopes()).isZero();
		assertThat(this.store.stats().deadScopes()).as("expired is not dead").isZero();
	}

	@Test
	void theBrokerDropsAMessageWhoseTimeToLivePassesInTheQueue() throws Exception {
		String deadLetters = this.topology.exchange("fanout");
		BoundQueue dropped = this.topology.bind(deadLetters, "");
		String exchange = this.topology.exchange("fanout");
		// Nobody consumes this queue; what expires there is dead-lettered to the queue above.
		String waiting = this.topology.queue(exchange, "", Map.of("x-dead-letter-exchange", deadLetters));
		startRelay();

		UUID id = inTransaction((OutboxPublisher p) -> p.send(exchange, new Note("short-lived"), (o) -> o.timeToLive(Duration.ofMillis(700))));
		await().until(() -> scopeStatusOf(id).equals("published"));

		Delivery expiredCopy = dropped.next();
		assertThat(expiredCopy.getProperties().getMessageId()).isEqualTo(id.toString());
		@SuppressWarnings("unchecked")
		Map<String, Object> death = ((List<Map<String, Object>>) expiredCopy.getProperties().getHeaders().get("x-death")).get(0);
		assertThat(death.get("reason")).hasToString("expired");
		assertThat(death.get("queue")).hasToString(waiting);
		GetResponse left = this.topology.channel().basicGet(waiting, true);
		assertThat(left).as("gone from the queue").isNull();
	}

	private void startRelay() {
		Transport transport = TestRabbit.get().transport().build();
		RelayListener listener = new RelayListener() {
			@Override
			public void expired(ClaimedScope scope) {
				SchedulingAndExpiryRabbitIntegrationTests.this.expired.incrementAndGet();
			}
		};
		TestRelay relay = TestRelay.builder(this.store, transport)
			.wakeUp(this.wakeUp)
			.settings(1, 50, Duration.ofSeconds(60), Duration.ofMillis(200), Duration.ofSeconds(5),
					RetryPolicy.defaults(), 3, Duration.ofSeconds(1))
			.listener(listener)
			.build();
		this.resources.add(transport);
		this.resources.add(relay);
		relay.start();
	}

	private OutboxPublisher publisher() {
		return TestOutbox.builder(this.schema.dataSource(), this.schema.tables()).wakeUp(this.wakeUp).build().publisher();
	}

	private <T> T inTransaction(Function<OutboxPublisher, T> work) {
		OutboxPublisher publisher = publisher();
		return new TransactionTemplate(new DataSourceTransactionManager(this.schema.dataSource()))
			.execute((status) -> work.apply(publisher));
	}

	private void inTransactionDo(Consumer<OutboxPublisher> work) {
		inTransaction((OutboxPublisher p) -> {
			work.accept(p);
			return null;
		});
	}

	private boolean cancel(ScheduledMessage scheduled) {
		return Boolean.TRUE.equals(inTransaction((OutboxPublisher p) -> p.cancel(scheduled)));
	}

	private String status(ScheduledMessage scheduled) {
		return jdbc().queryForObject("SELECT status FROM " + this.schema.tables().qualifiedOutboxState() + " WHERE id = ?",
				String.class, scheduled.scheduleId());
	}

	private String scopeStatusOf(UUID messageId) {
		return jdbc().queryForObject("SELECT s.status FROM " + this.schema.tables().qualifiedOutboxState() + " s JOIN "
				+ this.schema.tables().qualifiedOutboxMessage() + " m ON m.outbox_id = s.id WHERE m.message_id = ?",
				String.class, messageId);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	record Note(String text) {
	}

}
