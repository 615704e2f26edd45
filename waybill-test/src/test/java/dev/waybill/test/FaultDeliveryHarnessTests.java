package dev.waybill.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.test.app.HarnessTestApplication;
import dev.waybill.test.app.Messages.OrderPlaced;

/**
 * {@link WaybillTestHarness#deliver(Class, Object)} of a {@link Fault} event to a
 * {@code MessageHandler<Fault<T>>}: the delivery carries the fault's message type
 * ({@code fault:<the failed message's type>}), as the inbox publishes it, so the handler runs. It
 * used to carry Fault's class name, and the inbox moved every such delivery to the error queue as a
 * type the queue does not handle.
 */
@SpringBootTest(classes = { HarnessTestApplication.class, FaultDeliveryHarnessTests.FaultHandlers.class },
		properties = { "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.port=1" }) // no broker there
@AutoConfigureWaybillTest(transport = TestTransport.IN_MEMORY)
class FaultDeliveryHarnessTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		HarnessTestApplication.database(registry);
	}

	@Autowired
	WaybillTestHarness harness;

	@Autowired
	PaymentFailedHandler handler;

	@AfterEach
	void settle() {
		this.harness.awaitIdle();
	}

	@Test
	void aFaultEventDeliveredByTheHarnessReachesItsFaultHandler() {
		UUID orderId = UUID.randomUUID();
		Fault<OrderPlaced> fault = WaybillTestHarness.fault(new OrderPlaced(orderId, -1),
				"waybill-test-harness.charge-card", new IllegalArgumentException("cannot charge -1 cents"));
		assertThat(fault.messageType()).isEqualTo("waybill-test-harness.order-placed");
		assertThat(fault.exceptionType()).isEqualTo(IllegalArgumentException.class.getName());
		assertThat(fault.stackTrace()).startsWith("java.lang.IllegalArgumentException: cannot charge -1 cents\n\tat ");

		Delivery delivery = this.harness.deliver(PaymentFailedHandler.class, fault);

		assertThat(delivery.outcome()).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(this.handler.failedOrders).containsOnlyOnce(orderId);
		assertThat(delivery.redeliver().outcome()).isEqualTo(InboxOutcome.DUPLICATE);
		assertThat(this.handler.failedOrders).containsOnlyOnce(orderId);
	}

	@Test
	void aConsumedFaultEventIsObservedAndAwaitedAsAFaultOfItsMessage() {
		UUID orderId = UUID.randomUUID();
		this.harness.deliver(PaymentFailedHandler.class, new Fault<>(new OrderPlaced(orderId, -2), UUID.randomUUID(),
				"waybill-test-harness.order-placed", null, null, "waybill-test-harness.charge-card", "host",
				Instant.now(), 2, IllegalArgumentException.class.getName(), "cannot charge -2 cents", ""));

		@SuppressWarnings({ "rawtypes", "unchecked" })
		ObservedDelivery<Fault<OrderPlaced>> consumed = (ObservedDelivery) this.harness.within(Duration.ofSeconds(2))
			.awaitConsumed(PaymentFailedHandler.class, Fault.class,
					(fault) -> ((OrderPlaced) fault.message()).orderId().equals(orderId));
		assertThat(consumed.messageType()).isEqualTo("fault:waybill-test-harness.order-placed");
		assertThat(consumed.message().message()).isEqualTo(new OrderPlaced(orderId, -2));
		assertThat(this.harness.consumed(PaymentFailedHandler.class, Fault.class)).hasSize(1);
	}

	@Configuration(proxyBeanMethods = false)
	static class FaultHandlers {

		@Bean
		PaymentFailedHandler paymentFailedHandler() {
			return new PaymentFailedHandler();
		}

	}

	@Consumer(queue = "waybill-test-harness.payment-failed")
	static final class PaymentFailedHandler implements MessageHandler<Fault<OrderPlaced>> {

		final List<UUID> failedOrders = new CopyOnWriteArrayList<>();

		@Override
		public void handle(Fault<OrderPlaced> fault, MessageContext context) {
			this.failedOrders.add(fault.message().orderId());
		}

	}

}
