package dev.waybill.integration.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.integration.support.ChildJvm;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.integration.inbox.Billing.Order;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestPostgres;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * Two services over PostgreSQL and RabbitMQ: orders (A) publishes through its outbox, billing (B)
 * consumes through its inbox.
 */
class InboxRabbitIntegrationTests {

	private static final String ERROR_QUEUE = Billing.QUEUE + "_error";

	private TestSchema orders;

	private TestSchema billing;

	private Connection rabbit;

	private Channel channel;

	@BeforeEach
	void setUp() throws Exception {
		Billing.reset();
		this.orders = TestSchema.create("orders");
		this.billing = TestSchema.create("billing");
		this.billing.execute("CREATE TABLE " + this.billing.name() + ".payments (order_id uuid NOT NULL, mode text NOT NULL)");
		this.rabbit = TestRabbit.get().connect();
		this.channel = this.rabbit.createChannel();
		deleteTopology();
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.orders.close();
		this.billing.close();
	}

	@Test
	void whatOneServicePublishesAnotherHandlesOncePerMessage() {
		billingService().run((billingContext) -> {
			assertThat(billingContext).hasNotFailed();
			orderService().run((ordersContext) -> {
				List<UUID> ids = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					UUID id = UUID.randomUUID();
					ids.add(id);
					publish(ordersContext, new Order(id, "ok"));
				}
				await().until(() -> paymentCount() == 20);
				for (UUID id : ids) {
					assertThat(payments(id)).isOne();
				}
				await().until(() -> processedInboxRows() == 20);
			});
		});
	}

	@Test
	void bothServicesWorkOnAPoolThatDoesNotAutoCommit() {
		// spring.datasource.hikari.auto-commit=false, common with Hibernate: before, the relay's marks
		// were rolled back when their connections went back to the pool, so every scope stayed
		// pending and was published again at each lease's end.
		String manualCommit = "spring.datasource.hikari.auto-commit=false";
		billingService().withPropertyValues(manualCommit).run((billingContext) -> {
			assertThat(billingContext).hasNotFailed();
			orderService().withPropertyValues(manualCommit).run((ordersContext) -> {
				List<UUID> ids = new ArrayList<>();
				for (int i = 0; i < 10; i++) {
					UUID id = UUID.randomUUID();
					ids.add(id);
					publish(ordersContext, new Order(id, (i == 0) ? "flaky" : "ok"));
				}
				await().until(() -> paymentCount() == 10);
				await().until(() -> processedInboxRows() == 10);
				await().until(() -> jdbc().queryForObject("SELECT count(*) FROM " + this.orders.name()
						+ ".outbox_state WHERE status = 'published' AND attempts = 1", Integer.class) == 10);
				for (UUID id : ids) {
					assertThat(payments(id)).isOne();
				}
				assertThat(Billing.attempts.get(ids.get(0)).get()).as("the flaky handler's failures were recorded")
					.isEqualTo(3);
			});
		});
	}

	@Test
	void theSameMessageDeliveredThreeTimesTakesEffectOnce() {
		billingService().run((context) -> {
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			for (int i = 0; i < 3; i++) {
				publishRaw(messageId, Billing.ORDER_TYPE, json(order, "ok"));
			}
			await().until(() -> receiveCount(messageId) == 3);
			assertThat(payments(order)).isOne();
		});
	}

	@Test
	void duplicatesArrivingTogetherOnTwoConsumerThreadsTakeEffectOnce() {
		billingService().run((context) -> {
			Billing.slowGate = new CountDownLatch(1);
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			publishRaw(messageId, Billing.ORDER_TYPE, json(order, "slow"));
			publishRaw(messageId, Billing.ORDER_TYPE, json(order, "slow"));
			// Both copies are with the two consumer threads: one in the handler, one waiting on its row.
			await().until(() -> Billing.attempts.containsKey(order));
			CompletableFuture.runAsync(() -> {
				Awaitility.await().pollDelay(Duration.ofMillis(300)).until(() -> true);
				Billing.slowGate.countDown();
			});
			await().until(() -> receiveCount(messageId) == 2);
			await().until(() -> processedInboxRows() == 1);
			assertThat(payments(order)).isOne();
			assertThat(Billing.attempts.get(order).get()).isOne();
		});
	}

	@Test
	void aHandlerFailingTwiceThenSucceedingTakesEffectOnceWhileOtherMessagesFlow() {
		billingService().run((context) -> {
			UUID flaky = UUID.randomUUID();
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(flaky, "flaky"));
			List<UUID> others = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				UUID other = UUID.randomUUID();
				others.add(other);
				publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(other, "ok"));
			}
			await().until(() -> others.stream().allMatch(Billing.redeliveryCountOnSuccess::containsKey));
			assertThat(Billing.redeliveryCountOnSuccess).as("the others did not wait for the retries")
				.doesNotContainKey(flaky);

			await().until(() -> Billing.redeliveryCountOnSuccess.containsKey(flaky));
			assertThat(Billing.redeliveryCountOnSuccess.get(flaky)).isEqualTo(2);
			assertThat(Billing.attempts.get(flaky).get()).isEqualTo(3);
			// The handler notes its success before its transaction commits: wait for the commit.
			await().until(() -> payments(flaky) > 0);
			assertThat(payments(flaky)).as("the failed attempts rolled back").isOne();
		});
	}

	@Test
	void aHandlerThatAlwaysFailsLandsOnTheErrorQueueWithTheFaultInItsHeaders() {
		billingService().run((context) -> {
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			publishRaw(messageId, Billing.ORDER_TYPE, json(order, "fail"));

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(messageId);
			assertThat(fault.getBody()).isEqualTo(json(order, "fail"));
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertThat(headers.get("waybill-fault-exception-type")).hasToString(IllegalStateException.class.getName());
			assertThat(headers.get("waybill-fault-message")).hasToString("card declined for " + order);
			assertThat(headers.get("waybill-fault-stack-trace").toString()).contains("BillingHandler.handle");
			assertThat(headers.get("waybill-fault-attempts")).hasToString("3");
			assertThat(headers.get("waybill-original-exchange")).hasToString(Billing.ORDER_TYPE);
			assertThat(Billing.attempts.get(order).get()).isEqualTo(3);
			assertThat(payments(order)).isZero();
			await().until(() -> jdbc().queryForObject("SELECT count(*) FROM " + this.billing.name()
					+ ".inbox_state WHERE message_id = ?::uuid AND faulted_at IS NOT NULL AND processed_at IS NULL",
					Integer.class, messageId) == 1);
		});
	}

	@Test
	void poisonInputGoesToTheErrorQueueAtOnceWithTheReason() {
		billingService().run((context) -> {
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, "{not json".getBytes(StandardCharsets.UTF_8));
			assertThat(awaitError().getProps().getHeaders().get("waybill-fault-reason").toString()).isNotBlank();

			publishRaw(null, Billing.ORDER_TYPE, json(UUID.randomUUID(), "ok"));
			assertThat(awaitError().getProps().getHeaders().get("waybill-fault-reason").toString()).containsIgnoringCase("message id");

			publishRaw("not-a-uuid", Billing.ORDER_TYPE, json(UUID.randomUUID(), "ok"));
			assertThat(awaitError().getProps().getHeaders().get("waybill-fault-reason").toString()).containsIgnoringCase("message id");

			publishRaw(UUID.randomUUID().toString(), "waybill-test.inbox.something-else", json(UUID.randomUUID(), "ok"));
			assertThat(awaitError().getProps().getHeaders().get("waybill-fault-reason").toString())
				.contains("waybill-test.inbox.something-else");

			assertThat(paymentCount()).isZero();
			assertThat(Billing.attempts).isEmpty();
		});
	}

	@Test
	void aBodyLargerThanTheClientsDefaultLimitButWithinTheBrokersIsReceived() {
		billingService().run((context) -> {
			// amqp-client refuses inbound bodies over 64 MiB by default and drops the connection:
			// the broker then delivered the message again on every reconnection, for ever.
			UUID large = UUID.randomUUID();
			byte[] json = json(large, "ok");
			byte[] body = new byte[65 * 1024 * 1024];
			java.util.Arrays.fill(body, (byte) ' ');
			System.arraycopy(json, 0, body, 0, json.length);
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, body);
			UUID after = UUID.randomUUID();
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(after, "ok"));

			await().until(() -> payments(large) == 1 && payments(after) == 1);
			assertThat(this.channel.basicGet(ERROR_QUEUE, true)).isNull();
		});
	}

	@Test
	void aMessageWithHeadersTheClientCannotReadGoesToTheErrorQueueWithThemInsteadOfDroppingTheConnection() {
		billingService().run((context) -> {
			// RabbitMQ accepts tables nested 40 deep; amqp-client refuses more than 32 and drops the
			// connection, and the broker delivered the message again on every new one, for ever.
			Object deep = "bottom";
			for (int i = 0; i < 40; i++) {
				deep = Map.of("a", deep);
			}
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			this.channel.exchangeDeclare(Billing.ORDER_TYPE, "fanout", true);
			this.channel.basicPublish(Billing.ORDER_TYPE, "", new AMQP.BasicProperties.Builder().messageId(messageId)
				.type(Billing.ORDER_TYPE)
				.contentType("application/json")
				.deliveryMode(2)
				.headers(Map.of("deep", deep))
				.build(), json(order, "ok"));
			Map<String, Object> headers = faultWhileTheNextMessageFlows(messageId, order);
			assertThat(headers.get("waybill-fault-reason").toString())
				.contains("cannot be read by the RabbitMQ Java client", "nested deeper than 32 levels",
						"waybill-unreadable-headers");
			assertThat(headers.get("waybill-unreadable-headers")).isInstanceOf(byte[].class);
			assertThat(payments(order)).isZero();
		});
	}

	@Test
	void aDeliveryTheDatabaseRefusesToRecordWhoseHeadersFillAFrameReachesTheErrorQueueWithoutThem() throws Exception {
		billingService().run((context) -> {
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			refuseInserts(messageId);
			this.channel.exchangeDeclare(Billing.ORDER_TYPE, "fanout", true);
			// The largest header that still fits one frame inbound: with the fault reason the copy does not.
			int filler = this.channel.getConnection().getFrameMax() - 100;
			while (true) {
				AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
					.type(Billing.ORDER_TYPE)
					.contentType("application/json")
					.deliveryMode(2)
					.headers(Map.of("filler", "f".repeat(filler), "tenant", "acme"))
					.build();
				try {
					this.channel.basicPublish(Billing.ORDER_TYPE, "", properties, json(order, "ok"));
					break;
				}
				catch (IllegalArgumentException tooLarge) {
					filler -= 50;
				}
			}
			Map<String, Object> headers = faultWhileTheNextMessageFlows(messageId, order);
			assertThat(headers.get("waybill-fault-reason").toString())
				.startsWith("Waybill could not record the delivery in its inbox: ")
				.contains("refused by the test trigger");
			assertThat(headers.get("waybill-dropped-headers").toString()).startsWith("2 headers left out");
			assertThat(headers).doesNotContainKeys("filler", "tenant");
			assertThat(headers.get("waybill-original-exchange")).hasToString(Billing.ORDER_TYPE);
			assertThat(Billing.attempts).as("the handler never ran").doesNotContainKey(order);
			await().until(() -> this.channel.queueDeclarePassive(Billing.QUEUE).getMessageCount() == 0);
			assertThat(this.channel.basicGet(ERROR_QUEUE, true)).as("moved once").isNull();
		});
	}

	/**
	 * Publishes a good message after the failing one, waits for both, and returns the headers of
	 * the failing one's copy in the error queue, whose id and body it checks.
	 */
	private Map<String, Object> faultWhileTheNextMessageFlows(String messageId, UUID order) throws Exception {
		UUID after = UUID.randomUUID();
		publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(after, "ok"));
		GetResponse fault = awaitError();
		await().until(() -> payments(after) == 1);
		assertThat(fault.getProps().getMessageId()).isEqualTo(messageId);
		assertThat(fault.getBody()).isEqualTo(json(order, "ok"));
		return fault.getProps().getHeaders();
	}

	private void refuseInserts(String messageId) {
		// Not an outage: the database refuses this message's inbox row, and its fault in the outbox.
		String schema = this.billing.name();
		jdbc().execute("CREATE FUNCTION " + schema + ".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
				+ "IF NEW.message_id = '" + messageId + "' THEN RAISE EXCEPTION 'refused by the test trigger'; END IF; "
				+ "RETURN NEW; END $$");
		for (String table : List.of("inbox_state", "outbox_message")) {
			jdbc().execute("CREATE TRIGGER refuse BEFORE INSERT ON " + schema + "." + table
					+ " FOR EACH ROW EXECUTE FUNCTION " + schema + ".refuse()");
		}
	}

	@Test
	void aDeliveryTheDatabaseRefusesToRecordReachesTheErrorQueueWithItsReasonInsteadOfLooping() throws Exception {
		billingService().run((context) -> {
			UUID order = UUID.randomUUID();
			String messageId = UUID.randomUUID().toString();
			refuseInserts(messageId);
			String schema = this.billing.name();
			Date sent = new Date(1_700_000_000_000L);
			AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId)
				.type(Billing.ORDER_TYPE)
				.contentType("application/json")
				.deliveryMode(2)
				.headers(Map.of("sent-at", sent, "tenant", "acme", "waybill-fault-message", "SPOOF",
						"waybill-original-exchange", "SPOOF"))
				.build();
			this.channel.basicPublish(Billing.ORDER_TYPE, "", properties, json(order, "ok"));

			GetResponse fault = awaitError();

			assertThat(fault.getProps().getMessageId()).isEqualTo(messageId);
			assertThat(fault.getBody()).isEqualTo(json(order, "ok"));
			Map<String, Object> headers = fault.getProps().getHeaders();
			assertThat(headers.get("waybill-fault-reason").toString())
				.startsWith("Waybill could not record the delivery in its inbox: ")
				.contains("refused by the test trigger");
			assertThat(headers.get("sent-at")).as("headers keep their AMQP types").isEqualTo(sent);
			assertThat(headers.get("tenant")).hasToString("acme");
			assertThat(headers.get("waybill-original-exchange")).as("not the sender's").hasToString(Billing.ORDER_TYPE);
			assertThat(headers).as("nor a fault header of the sender's").doesNotContainKey("waybill-fault-message");
			assertThat(Billing.attempts).as("the handler never ran").doesNotContainKey(order);
			assertThat(jdbc().queryForObject("SELECT count(*) FROM " + schema + ".inbox_state", Integer.class)).isZero();
			await().until(() -> this.channel.queueDeclarePassive(Billing.QUEUE).getMessageCount() == 0);
			assertThat(this.channel.basicGet(ERROR_QUEUE, true)).as("moved once").isNull();
		});
	}

	@Test
	void aHandlersPublicationsAreDeliveredOnlyWhenItsTransactionCommits() throws Exception {
		String payments = "waybill-test.inbox.payments";
		this.channel.exchangeDeclare(Billing.PAYMENT_TYPE, "fanout", true);
		this.channel.queueDeclare(payments, true, false, false, null);
		this.channel.queueBind(payments, Billing.PAYMENT_TYPE, "");
		billingService().run((context) -> {
			UUID committed = UUID.randomUUID();
			UUID rolledBack = UUID.randomUUID();
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(rolledBack, "publish-then-fail"));
			publishRaw(UUID.randomUUID().toString(), Billing.ORDER_TYPE, json(committed, "publish"));

			GetResponse captured = await().until(() -> this.channel.basicGet(payments, true), (r) -> r != null);
			assertThat(new String(captured.getBody(), StandardCharsets.UTF_8)).contains(committed.toString());
			awaitError(); // the failing handler gave up after its attempts
			assertThat(this.channel.basicGet(payments, true)).as("nothing from the rolled-back handler").isNull();
			Map<String, Object> scope = jdbc().queryForMap("SELECT s.inbound_message_id, s.consumer_id FROM "
					+ this.billing.name() + ".outbox_state s JOIN " + this.billing.name()
					+ ".outbox_message m ON m.outbox_id = s.id WHERE m.message_type = ?", Billing.PAYMENT_TYPE);
			assertThat(scope.get("consumer_id")).isEqualTo(Billing.QUEUE);
			assertThat(scope.get("inbound_message_id")).isNotNull();
		});
	}

	@Test
	void aConsumerKilledMidHandlerLosesNothingAndTheRedeliveryTakesEffectOnce() throws Exception {
		// The first consumer declares the queue; stop it so the child alone receives the message.
		billingService().run((context) -> {
		});
		UUID order = UUID.randomUUID();
		String messageId = UUID.randomUUID().toString();
		publishRaw(messageId, Billing.ORDER_TYPE, json(order, "block"));
		Process child = startBillingProcess();
		try {
			BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
			CompletableFuture<Boolean> handling = CompletableFuture.supplyAsync(() -> output.lines()
				.anyMatch((line) -> line.startsWith("HANDLING " + order)));
			assertThat(handling.get(60, TimeUnit.SECONDS)).as("the child process is inside the handler").isTrue();
			assertThat(paymentCount()).as("its effect is not committed").isZero();
			child.destroyForcibly();
			assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			child.destroyForcibly();
		}
		assertThat(processedInboxRows()).as("never processed without the effect").isZero();

		billingService().run((context) -> {
			await().until(() -> payments(order) == 1);
			await().until(() -> processedInboxRows() == 1);
		});
		assertThat(payments(order)).isOne();
	}

	private Process startBillingProcess() throws Exception {
		TestPostgres postgres = TestPostgres.get();
		return ChildJvm.builder(BillingService.class, List.of("waybill.test.block=true"),
				"--spring.datasource.url=" + postgres.url(), "--spring.datasource.username=" + postgres.user(),
				"--spring.datasource.password=" + postgres.password(), "--waybill.schema=" + this.billing.name(),
				"--spring.rabbitmq.host=" + TestRabbit.get().host(), "--spring.rabbitmq.port=" + TestRabbit.get().port(),
				"--spring.main.banner-mode=off")
			.start();
	}

	private ApplicationContextRunner billingService() {
		return service(this.billing).withUserConfiguration(BillingService.class);
	}

	private ApplicationContextRunner orderService() {
		return service(this.orders);
	}

	private static ApplicationContextRunner service(TestSchema schema) {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "waybill.inbox.retry.interval=200ms",
					"waybill.inbox.retry.max-attempts=3", "waybill.inbox.retry.jitter=0");
	}

	private static void publish(AssertableApplicationContext context, Object message) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).publish(message));
	}

	private void publishRaw(String messageId, String type, byte[] body) throws Exception {
		this.channel.exchangeDeclare(Billing.ORDER_TYPE, "fanout", true);
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(messageId).type(type)
			.contentType("application/json").deliveryMode(2).build();
		this.channel.basicPublish(Billing.ORDER_TYPE, "", properties, body);
	}

	private GetResponse awaitError() {
		return await().until(() -> this.channel.basicGet(ERROR_QUEUE, true), (response) -> response != null);
	}

	private static byte[] json(UUID order, String mode) {
		return ("{\"id\":\"" + order + "\",\"mode\":\"" + mode + "\"}").getBytes(StandardCharsets.UTF_8);
	}

	private int payments(UUID order) {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.billing.name() + ".payments WHERE order_id = ?",
				Integer.class, order);
	}

	private int paymentCount() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.billing.name() + ".payments", Integer.class);
	}

	private int processedInboxRows() {
		return jdbc().queryForObject("SELECT count(*) FROM " + this.billing.name()
				+ ".inbox_state WHERE processed_at IS NOT NULL", Integer.class);
	}

	private int receiveCount(String messageId) {
		List<Integer> counts = jdbc().queryForList("SELECT receive_count FROM " + this.billing.name()
				+ ".inbox_state WHERE message_id = ?::uuid", Integer.class, messageId);
		return counts.isEmpty() ? 0 : counts.get(0);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.billing.dataSource());
	}

	private void deleteTopology() throws Exception {
		for (String queue : List.of(Billing.QUEUE, ERROR_QUEUE, "waybill-test.inbox.payments")) {
			this.channel.queueDelete(queue);
		}
		for (String exchange : List.of(Billing.ORDER_TYPE, Billing.PAYMENT_TYPE)) {
			this.channel.exchangeDelete(exchange);
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

}
