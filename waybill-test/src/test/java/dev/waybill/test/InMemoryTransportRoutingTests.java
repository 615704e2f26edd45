package dev.waybill.test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.EndpointBinding;
import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportChannel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the in-memory transport routes a message to the consumers' queues, without starting them.
 */
class InMemoryTransportRoutingTests {

	record ChargeCard(UUID orderId) {
	}

	record Shipped(UUID orderId) {
	}

	private final ReceiveEndpoint charges = ReceiveEndpoint.on("billing.charge")
		.withBindings(List.of(new EndpointBinding("billing-commands", ""), new EndpointBinding("billing-commands", "eu")))
		.handle(ChargeCard.class, (message, context) -> {
		});

	private final ReceiveEndpoint euCharges = ReceiveEndpoint.on("billing.charge-eu")
		.withBindings(List.of(new EndpointBinding("regional-commands", "eu")))
		.handle(ChargeCard.class, (message, context) -> {
		});

	private final ReceiveEndpoint shipping = ReceiveEndpoint.on("shipping").handle(Shipped.class,
			(message, context) -> {
			});

	private final InMemoryTransport transport = new InMemoryTransport(
			() -> List.of(this.charges, this.euCharges, this.shipping), () -> {
				throw new IllegalStateException("not consumed in these tests");
			});

	@Test
	void aSendToAnExchangeOfAnExtraBindingReachesItsQueueOnce() throws Exception {
		send("billing-commands", "eu"); // matches both of the queue's bindings
		send("billing-commands", "us"); // the empty key binds every key

		assertThat(this.transport.waiting("billing.charge")).isEqualTo(2);
		assertThat(this.transport.unrouted()).isEmpty();
	}

	@Test
	void aBindingWithARoutingKeyTakesOnlyThatKey() throws Exception {
		send("regional-commands", "eu");
		send("regional-commands", "us");

		assertThat(this.transport.waiting("billing.charge-eu")).isEqualTo(1);
		assertThat(this.transport.unrouted()).singleElement()
			.satisfies((message) -> assertThat(message.routingKey()).isEqualTo("us"));
	}

	@Test
	void aSendToAnExchangeNoConsumerIsBoundToIsUnrouted() throws Exception {
		send("nobody-binds-this", "");

		assertThat(this.transport.waiting("billing.charge")).isZero();
		assertThat(this.transport.waiting("shipping")).isZero();
		assertThat(this.transport.unrouted()).hasSize(1);
	}

	private void send(String exchange, String routingKey) throws Exception {
		try (TransportChannel channel = this.transport.openChannel()) {
			OutboxMessage message = new OutboxMessage(UUID.randomUUID(), exchange, routingKey, "billing.charge-card",
					"application/json", Map.of(), "{}".getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(),
					null);
			assertThat(channel.publish(message)).succeedsWithin(java.time.Duration.ofSeconds(5));
		}
	}

}
