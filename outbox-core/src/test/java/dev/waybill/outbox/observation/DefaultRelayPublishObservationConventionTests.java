package dev.waybill.outbox.observation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.spi.OutboxMessage;

/**
 * The relay's span names the exchange, or, for the default exchange (the inbox's redeliveries and
 * moves to the error queue), the queue it routes to: never a name with a trailing space that tells
 * a retry from a fault no better than from any other default-exchange publish.
 */
class DefaultRelayPublishObservationConventionTests {

	private final DefaultRelayPublishObservationConvention convention = DefaultRelayPublishObservationConvention.INSTANCE;

	@Test
	void aMessageToAnExchangeIsNamedAfterTheExchange() {
		assertThat(name("orders.order-placed", "")).isEqualTo("publish orders.order-placed");
		assertThat(name("regions", "orders.eu.paris")).isEqualTo("publish regions");
	}

	@Test
	void aMessageThroughTheDefaultExchangeIsNamedAfterItsQueue() {
		assertThat(name("", "billing")).isEqualTo("publish billing");
		assertThat(name("", "billing_error")).isEqualTo("publish billing_error");
	}

	@Test
	void withNeitherExchangeNorRoutingKeyTheNameIsTheOperationAlone() {
		assertThat(name("", "")).isEqualTo("publish");
	}

	private String name(String destination, String routingKey) {
		OutboxMessage message = new OutboxMessage(UUID.randomUUID(), destination, routingKey, "t", "application/json",
				Map.of(), new byte[0], null, null, null, Instant.now(), null);
		return this.convention.getContextualName(new RelayPublishContext(UUID.randomUUID(), message));
	}

}
