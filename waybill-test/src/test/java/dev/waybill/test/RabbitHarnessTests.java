package dev.waybill.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.WaybillPhases;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestReceiveEndpoint;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.test.app.HarnessTestApplication;
import dev.waybill.test.app.HarnessTestApplication.Calls;
import dev.waybill.test.app.HarnessTestApplication.ChargeCardHandler;
import dev.waybill.test.app.HarnessTestApplication.Orders;
import dev.waybill.test.app.HarnessTestApplication.ReceiptHandler;
import dev.waybill.test.app.Messages.CardCharged;
import dev.waybill.test.app.Messages.OrderPlaced;
import dev.waybill.test.app.Messages.ShipOrder;

/**
 * The harness with the application's real transport: the relay publishes to RabbitMQ
 * ({@link TestRabbit}) and the receive endpoint feeds the inbox.
 */
@SpringBootTest(classes = HarnessTestApplication.class,
		properties = { "waybill.outbox.retry.max-attempts=2", "waybill.outbox.retry.interval=100ms" })
@AutoConfigureWaybillTest
@Import(RabbitHarnessTests.DeleteTopology.class)
class RabbitHarnessTests {

	private static final List<String> QUEUES = List.of("waybill-test-harness.charge-card",
			"waybill-test-harness.charge-card_error", "waybill-test-harness.receipts",
			"waybill-test-harness.receipts_error");

	private static final List<String> EXCHANGES = List.of("waybill-test-harness.order-placed",
			"waybill-test-harness.card-charged");

	@DynamicPropertySource
	static void services(DynamicPropertyRegistry registry) {
		HarnessTestApplication.database(registry);
		TestRabbit rabbit = TestRabbit.get();
		registry.add("spring.rabbitmq.host", rabbit::host);
		registry.add("spring.rabbitmq.port", rabbit::port);
		registry.add("spring.rabbitmq.virtual-host", rabbit::virtualHost);
		registry.add("spring.rabbitmq.username", rabbit::username);
		registry.add("spring.rabbitmq.password", rabbit::password);
	}

	@BeforeAll
	static void deleteLeftovers() {
		deleteTopology();
	}

	@Autowired
	WaybillTestHarness harness;

	@Autowired
	Orders orders;

	@Autowired
	Calls calls;

	@Autowired
	ApplicationContext context;

	@BeforeEach
	void consuming() {
		TestReceiveEndpoint endpoint = TestReceiveEndpoint.of(this.context);
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(endpoint::isConsuming);
	}

	@AfterEach
	void settle() {
		this.harness.awaitIdle();
	}

	@Test
	void aPublishedEventTravelsThroughRabbitMQToBothHandlers() {
		assertThat(TestRabbit.isRabbit(this.context.getBean(Transport.class))).isTrue();
		assertThat(this.context.getBeanProvider(InMemoryTransport.class).getIfAvailable()).isNull();

		UUID id = this.orders.place(1250);

		ObservedMessage<OrderPlaced> published = this.harness.awaitPublished(OrderPlaced.class,
				(event) -> event.orderId().equals(id));
		ObservedMessage<OrderPlaced> relayed = this.harness.awaitRelayed(OrderPlaced.class,
				(event) -> event.orderId().equals(id));
		assertThat(relayed.messageId()).isEqualTo(published.messageId());
		ObservedDelivery<OrderPlaced> charged = this.harness.awaitConsumed(ChargeCardHandler.class, OrderPlaced.class,
				(event) -> event.orderId().equals(id));
		assertThat(charged.messageId()).isEqualTo(published.messageId().toString());
		assertThat(charged.headers()).containsKey("waybill-source-host");
		this.harness.awaitConsumed(ReceiptHandler.class, CardCharged.class, (event) -> event.orderId().equals(id));
		this.harness.awaitIdle();
		assertThat(this.calls.receipts).containsOnlyOnce(id);
	}

	@Test
	void aFailingHandlerIsRetriedThroughTheBrokerThenFaulted() {
		UUID id = this.orders.place(-5);

		this.harness.awaitRetried(ChargeCardHandler.class, OrderPlaced.class);
		this.harness.awaitFaulted(ChargeCardHandler.class, OrderPlaced.class, (event) -> event.orderId().equals(id));
		this.harness.awaitIdle();
		assertThat(this.harness.relayed(OrderPlaced.class)).extracting(ObservedMessage::routingKey)
			.contains("", "waybill-test-harness.charge-card", "waybill-test-harness.charge-card_error");
	}

	@Test
	void aMessageDeliveredTwiceIsHandledOnceAndWhatItPublishedGoesThroughTheBroker() {
		UUID id = UUID.randomUUID();

		Delivery first = this.harness.deliver(ChargeCardHandler.class, new OrderPlaced(id, 10));

		assertThat(first.outcome()).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(first.redeliver().outcome()).isEqualTo(InboxOutcome.DUPLICATE);
		this.harness.awaitConsumed(ReceiptHandler.class, CardCharged.class, (event) -> event.orderId().equals(id));
		assertThat(this.calls.charged).filteredOn((call) -> call.startsWith(id.toString())).hasSize(1);
	}

	@Test
	void awaitIdleWaitsForWhatIsStillInTheBroker() {
		UUID id = this.orders.place(20);

		this.harness.awaitIdle();

		// Idle means the whole chain finished: both handlers ran.
		assertThat(this.harness.consumed(ChargeCardHandler.class, OrderPlaced.class)).extracting(ObservedDelivery::message)
			.contains(new OrderPlaced(id, 20));
		assertThat(this.harness.consumed(ReceiptHandler.class, CardCharged.class)).extracting(ObservedDelivery::message)
			.contains(new CardCharged(id, 20));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.harness.within(Duration.ofMillis(200)).awaitPublished(OrderPlaced.class,
					(event) -> event.cents() == 21))
			.withMessageContaining("under way: 0 outbox scopes pending");
	}

	@Test
	void aScopeTheBrokerCannotRouteIsRetriedByTheRelayThenDeadLettered() {
		UUID id = this.orders.placeAndShip(30); // to an exchange that does not exist

		ObservedMessage<ShipOrder> dead = this.harness.awaitDeadLettered(ShipOrder.class,
				(command) -> command.orderId().equals(id));

		assertThat(dead.destination()).isEqualTo("waybill-test-harness.shipping");
		assertThat(this.harness.relayRetried(ShipOrder.class)).extracting(ObservedMessage::messageId)
			.containsExactly(dead.messageId());
		assertThat(this.harness.describe()).contains("dead-lettered by the relay (2):")
			.contains("destination exchange 'waybill-test-harness.shipping' does not exist");
	}

	@Test
	void aWaitThatTimesOutSaysWhenAnotherConsumerMayHaveTakenTheDelivery() throws IOException {
		UUID id;
		try (Connection connection = TestRabbit.get().connect()) {
			// Another consumer of the application's queue (a running instance of the service), of a
			// higher priority: the broker hands it the queue's messages while it has credit.
			Channel other = connection.createChannel();
			other.basicQos(100);
			other.basicConsume("waybill-test-harness.charge-card", false, Map.of("x-priority", 10),
					(tag, delivery) -> {
					}, (tag) -> {
					});
			id = this.orders.place(40);
			UUID placed = id;

			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> this.harness.within(Duration.ofSeconds(2))
					.awaitConsumed(ChargeCardHandler.class, OrderPlaced.class, (event) -> event.orderId().equals(placed)))
				.withMessageContaining("1 deliveries on their way to local handlers")
				.withMessageContaining("1 of those deliveries confirmed by the broker but not received here")
				.withMessageContaining("another consumer of the queue may be taking them")
				.withMessageContaining("spring.rabbitmq.virtual-host");
		}
		// Its connection closed, the broker delivers the message again, to the application.
		UUID placed = id;
		this.harness.awaitConsumed(ChargeCardHandler.class, OrderPlaced.class, (event) -> event.orderId().equals(placed));
	}

	private static void deleteTopology() {
		try (Connection connection = TestRabbit.get().connect()) {
			Channel channel = connection.createChannel();
			for (String queue : QUEUES) {
				channel.queueDelete(queue);
			}
			for (String exchange : EXCHANGES) {
				channel.exchangeDelete(exchange);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not delete the test's queues on " + TestRabbit.get(), ex);
		}
	}

	/** Deletes the test's queues and exchanges once the consumers and the relay have stopped. */
	static final class DeleteTopology implements SmartLifecycle {

		private volatile boolean running;

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			deleteTopology();
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return WaybillPhases.RELAY - 1; // after the consumers and the relay
		}

	}

}
