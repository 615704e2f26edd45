package dev.waybill.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.test.app.Messages.CardCharged;
import dev.waybill.test.app.Messages.OrderPlaced;

/**
 * The bookkeeping behind {@link WaybillTestHarness#awaitIdle()}: which deliveries the
 * application's own consumers are still owed, whatever order the events arrive in.
 */
class ObservationsTests {

	private static final MessageHandler<OrderPlaced> CHARGE = (message, context) -> {
	};

	private static final MessageHandler<CardCharged> RECEIPT = (message, context) -> {
	};

	private final ConsumerRegistration<OrderPlaced> charge = ConsumerRegistration.of("charge", OrderPlaced.class,
			CHARGE);

	private final ConsumerRegistration<CardCharged> receipt = ConsumerRegistration.of("receipt", CardCharged.class,
			RECEIPT);

	private final Observations observations = new Observations(() -> List.of(this.charge, this.receipt));

	@Test
	void aCommittedMessageIsOwedToEveryLocalQueueBoundToItsTypeUntilItsOutcome() {
		OutboxMessage placed = message("waybill-test-harness.order-placed", "");
		this.observations.committed(placed, new Object(), false, 1);

		assertThat(this.observations.inFlight()).containsExactly(placed.messageId() + " on 'charge'");

		InboundMessage inbound = inbound(placed);
		this.observations.started(this.charge, inbound);
		assertThat(this.observations.busy()).isEqualTo(1);
		this.observations.delivered(this.charge, inbound, InboxOutcome.PROCESSED);
		this.observations.finished(this.charge, inbound, InboxOutcome.PROCESSED, 1);

		assertThat(this.observations.inFlight()).isEmpty();
		assertThat(this.observations.busy()).isZero();
	}

	@Test
	void aDeliveryThatFinishesBeforeItsCommitWasRecordedIsNotOwedAfterwards() {
		OutboxMessage placed = message("waybill-test-harness.order-placed", "");
		InboundMessage inbound = inbound(placed);
		this.observations.started(this.charge, inbound);
		this.observations.finished(this.charge, inbound, InboxOutcome.PROCESSED, 1);

		this.observations.committed(placed, new Object(), false, 1);

		assertThat(this.observations.inFlight()).isEmpty();
	}

	@Test
	void aScheduledRedeliveryIsOwedUntilItArrivesAndADeliveryWithoutOutcomeStaysOwed() {
		OutboxMessage placed = message("waybill-test-harness.order-placed", "");
		this.observations.committed(placed, new Object(), false, 1);
		InboundMessage inbound = inbound(placed);
		this.observations.started(this.charge, inbound);
		this.observations.delivered(this.charge, inbound, InboxOutcome.RETRY_SCHEDULED);
		this.observations.finished(this.charge, inbound, InboxOutcome.RETRY_SCHEDULED, 1);

		assertThat(this.observations.inFlight()).hasSize(1);

		// The database was unavailable: nothing recorded, the delivery comes again.
		this.observations.started(this.charge, inbound);
		this.observations.finished(this.charge, inbound, null, 1);
		assertThat(this.observations.inFlight()).hasSize(1);

		this.observations.started(this.charge, inbound);
		this.observations.delivered(this.charge, inbound, InboxOutcome.PROCESSED);
		this.observations.finished(this.charge, inbound, InboxOutcome.PROCESSED, 1);
		assertThat(this.observations.inFlight()).isEmpty();
	}

	@Test
	void messagesForOtherServicesAndTheTestsOwnDeliveriesAreNotOwed() {
		this.observations.committed(message("billing.invoice-requested", ""), new Object(), false, 1);
		this.observations.committed(message("", "some-other-service-queue"), new Object(), true, 1);
		assertThat(this.observations.inFlight()).isEmpty();

		OutboxMessage placed = message("waybill-test-harness.order-placed", "");
		Observations.HARNESS_DELIVERY.set(Boolean.TRUE);
		try {
			this.observations.started(this.charge, inbound(placed));
			this.observations.finished(this.charge, inbound(placed), InboxOutcome.PROCESSED, 1);
		}
		finally {
			Observations.HARNESS_DELIVERY.remove();
		}
		this.observations.committed(placed, new Object(), false, 1);
		assertThat(this.observations.inFlight()).hasSize(1);
	}

	@Test
	void aDeadLetteredScopeIsNoLongerOwedAndTheDefaultExchangeRoutesByQueueName() {
		OutboxMessage redelivery = message("", "receipt");
		this.observations.committed(redelivery, new Object(), false, 1);
		assertThat(this.observations.inFlight()).containsExactly(redelivery.messageId() + " on 'receipt'");

		this.observations.deadLettered(new ClaimedScope(UUID.randomUUID(), Instant.now(), 5, "relay", Instant.now(),
				List.of(redelivery)), "unroutable");

		assertThat(this.observations.inFlight()).isEmpty();
		assertThat(this.observations.deadLettered).hasSize(1);
	}

	@Test
	void anExpiredScopeIsNoLongerOwed() {
		OutboxMessage placed = message("waybill-test-harness.order-placed", "");
		this.observations.committed(placed, new Object(), false, 1);
		assertThat(this.observations.inFlight()).hasSize(1);

		this.observations.expired(new ClaimedScope(UUID.randomUUID(), Instant.now(), 1, "relay", Instant.now(),
				List.of(placed)));

		assertThat(this.observations.inFlight()).isEmpty();
	}

	@Test
	void aScheduledMessageIsOwedOnlyOnceTheRelayPublishedItSoACancelledOneIsNot() {
		OutboxMessage reminder = scheduled("waybill-test-harness.order-placed");
		this.observations.committed(reminder, new Object(), false, 1);
		// cancelled before it fell due: the relay never publishes it (its pending scope is what awaitIdle waits on)
		assertThat(this.observations.inFlight()).isEmpty();

		OutboxMessage due = scheduled("waybill-test-harness.order-placed");
		this.observations.committed(due, new Object(), false, 2);
		this.observations.published(new ClaimedScope(UUID.randomUUID(), Instant.now(), 1, "relay", Instant.now(),
				List.of(due)), Instant.now());
		assertThat(this.observations.inFlight()).containsExactly(due.messageId() + " on 'charge'");
		InboundMessage inbound = inbound(due);
		this.observations.started(this.charge, inbound);
		this.observations.delivered(this.charge, inbound, InboxOutcome.PROCESSED);
		this.observations.finished(this.charge, inbound, InboxOutcome.PROCESSED, 1);
		assertThat(this.observations.inFlight()).isEmpty();
	}

	@Test
	void anExpiredScheduledMessageIsNotOwed() {
		OutboxMessage reminder = scheduled("waybill-test-harness.order-placed");
		this.observations.committed(reminder, new Object(), false, 1);
		this.observations.expired(new ClaimedScope(UUID.randomUUID(), Instant.now(), 1, "relay", Instant.now(),
				List.of(reminder)));
		assertThat(this.observations.inFlight()).isEmpty();
	}

	private static OutboxMessage scheduled(String destination) {
		return new OutboxMessage(UUID.randomUUID(), destination, "", destination, "application/json", Map.of(),
				"{}".getBytes(), null, null, null, Instant.now(), Instant.now().plusSeconds(60), null);
	}

	private static OutboxMessage message(String destination, String routingKey) {
		String type = destination.isEmpty() ? "waybill-test-harness.card-charged" : destination;
		return new OutboxMessage(UUID.randomUUID(), destination, routingKey, type, "application/json", Map.of(),
				"{}".getBytes(), null, null, null, Instant.now(), null);
	}

	private static InboundMessage inbound(OutboxMessage message) {
		return new InboundMessage(message.messageId().toString(), message.messageType(), message.contentType(),
				message.headers(), message.body(), null, null, message.destination(), message.routingKey());
	}

}
