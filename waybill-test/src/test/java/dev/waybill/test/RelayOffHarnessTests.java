package dev.waybill.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.test.app.HarnessTestApplication;
import dev.waybill.test.app.HarnessTestApplication.Orders;
import dev.waybill.test.app.Messages.OrderPlaced;

/**
 * The harness with the relay off and the in-memory transport chosen by property rather than by
 * the annotation: publications are observed at commit, and {@link WaybillTestHarness#awaitIdle()}
 * fails naming the pending outbox. The tests run in order: the second shows the harness was reset
 * before it.
 */
@SpringBootTest(classes = HarnessTestApplication.class,
		properties = { "waybill.test.transport=in-memory", "waybill.outbox.relay.enabled=false" })
@AutoConfigureWaybillTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RelayOffHarnessTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		HarnessTestApplication.database(registry);
	}

	@Autowired
	WaybillTestHarness harness;

	@Autowired
	Orders orders;

	@Autowired
	ApplicationContext context;

	@Test
	@Order(1)
	void publicationsAreObservedAtCommitAndIdleWaitsForTheOutbox() {
		assertThat(this.context.getBean(Transport.class)).isInstanceOf(InMemoryTransport.class);
		assertThat(this.context.containsBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME)).isFalse();

		UUID id = this.orders.place(90);

		assertThat(this.harness.awaitPublished(OrderPlaced.class).message()).isEqualTo(new OrderPlaced(id, 90));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.harness.within(Duration.ofMillis(300)).awaitIdle())
			.withMessageContaining("Expected Waybill to be idle within PT0.3S, but it did not happen.")
			.withMessageContaining("under way: 1 outbox scopes pending (1 messages)")
			.withMessageContaining("1 deliveries on their way to local handlers");
	}

	@Test
	@Order(2)
	void theHarnessIsResetBeforeEachTest() {
		assertThat(this.harness.published()).isEmpty();

		UUID id = this.orders.place(91);

		assertThat(this.harness.published()).extracting(ObservedMessage::message).containsExactly(new OrderPlaced(id, 91));
	}

}
