package dev.waybill.samples.billing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.samples.billing.Payments.OrderPayments;
import dev.waybill.samples.messages.OrderPlaced;
import dev.waybill.samples.messages.PaymentCaptured;
import dev.waybill.samples.messages.PaymentMethod;
import dev.waybill.samples.test.SampleInfrastructure;
import dev.waybill.test.AutoConfigureWaybillTest;
import dev.waybill.test.Delivery;
import dev.waybill.test.ObservedDelivery;
import dev.waybill.test.TestTransport;
import dev.waybill.test.WaybillTestHarness;

/**
 * The billing service as the application, on a real PostgreSQL with the test harness's in-memory
 * transport: orders are delivered to its handler by the harness, as RabbitMQ would deliver the
 * order service's events.
 */
@SpringBootTest(classes = BillingServiceApplication.class,
		properties = { "spring.config.name=" + BillingServiceApplication.CONFIG_NAME,
				"billing.first-attempt-failure-fraction=0", "waybill.inbox.retry.interval=50ms" })
@AutoConfigureWaybillTest(transport = TestTransport.IN_MEMORY)
@Import(SampleInfrastructure.DropOnClose.class)
class BillingIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		SampleInfrastructure.database(registry, "billing");
	}

	@Autowired
	WaybillTestHarness harness;

	@Autowired
	Payments payments;

	@AfterEach
	void settle() {
		this.harness.awaitIdle();
	}

	@Test
	void anOrderIsBilledOnceHoweverOftenItIsDelivered() {
		UUID order = UUID.randomUUID();

		Delivery delivery = this.harness.deliver(OrderPlacedHandler.class,
				new OrderPlaced(order, "ada", 1250, PaymentMethod.CARD));
		Delivery again = delivery.redeliver();

		assertThat(delivery.outcome()).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(again.outcome()).isEqualTo(InboxOutcome.DUPLICATE);
		PaymentCaptured captured = this.harness
			.awaitPublished(PaymentCaptured.class, (payment) -> payment.orderId().equals(order))
			.message();
		assertThat(captured.amountCents()).isEqualTo(1250);
		assertThat(this.payments.paymentsOf(List.of(order))).containsExactly(new OrderPayments(order, 1));
	}

	@Test
	void aBarterOrderGoesToTheErrorQueueAtOnceAndRaisesAFault() {
		UUID order = UUID.randomUUID();

		this.harness.deliver(OrderPlacedHandler.class, new OrderPlaced(order, "grace", 80, PaymentMethod.BARTER));

		ObservedDelivery<OrderPlaced> faulted = this.harness.awaitFaulted(OrderPlacedHandler.class, OrderPlaced.class,
				(placed) -> placed.orderId().equals(order));
		// The endpoint never retries the exception BARTER raises: one attempt, no redelivery.
		assertThat(faulted.headers()).doesNotContainKey(InboxHeaders.REDELIVERY_COUNT);
		assertThat(this.harness.retried(OrderPlaced.class)).isEmpty();
		assertThat(this.harness.published(PaymentCaptured.class)).isEmpty();
		assertThat(this.payments.paymentsOf(List.of(order))).isEmpty();
	}

}
