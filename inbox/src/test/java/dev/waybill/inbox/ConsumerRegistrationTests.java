package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.MessageType;

class ConsumerRegistrationTests {

	private static final MessageHandler<Shipped> HANDLER = (message, context) -> {
	};

	@Test
	void aRegistrationMadeByHandHasTheMessageTypeOfItsClassAndTheDefaults() {
		ConsumerRegistration<Shipped> registration = ConsumerRegistration.of("ship-parcel", Shipped.class, HANDLER);

		assertThat(registration.queue()).isEqualTo("ship-parcel");
		assertThat(registration.consumerId()).isEqualTo("ship-parcel");
		assertThat(registration.errorQueue()).isEqualTo("ship-parcel_error");
		assertThat(registration.messageType()).isEqualTo("test.shipped");
		assertThat(registration.payloadClass()).isEqualTo(Shipped.class);
		assertThat(registration.handler()).isSameAs(HANDLER);
		assertThat(registration.retry()).isNull();
		assertThat(registration.neverRetry()).isEmpty();
		assertThat(registration.ignore()).isEmpty();
		ReceiveEndpoint endpoint = ReceiveEndpoint.of(List.of(registration));
		assertThat(endpoint.concurrency()).isEqualTo(ReceiveEndpoint.DEFAULT_CONCURRENCY).isEqualTo(4);
		assertThat(endpoint.prefetch()).isEqualTo(ReceiveEndpoint.DEFAULT_PREFETCH).isEqualTo(32);
		assertThat(endpoint.queueArguments()).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "orders queue", "orders/eu", "amq.orders" })
	void invalidQueueNamesAreRefused(String queue) {
		assertThatIllegalArgumentException().isThrownBy(() -> ConsumerRegistration.of(queue, Shipped.class, HANDLER))
			.withMessageStartingWith("Queue '" + queue + "' ");
	}

	@Test
	void aQueueNameLeavesRoomForItsErrorQueue() {
		assertThat(ConsumerRegistration.of("q".repeat(249), Shipped.class, HANDLER).errorQueue()).hasSize(255);
		assertThat(ConsumerRegistration.queueNameProblem("q".repeat(250)))
			.isEqualTo("is 250 characters long; at most 249 are allowed, so that its error queue '<queue>_error' fits in 255");
		assertThat(ConsumerRegistration.queueNameProblem("billing.charge-card:v2_eu")).isNull();
	}

	@Test
	void aMessageClassWithoutStableNameIsRefused() {
		Object anonymous = new Object() {
		};
		assertThatIllegalArgumentException().isThrownBy(() -> ConsumerRegistration.of("q", anonymous.getClass(),
				(message, context) -> {
				}))
			.isInstanceOf(InvalidMessageException.class);
	}

	@Test
	void aRegistryGroupsConsumersByQueueAndRefusesTwoOfOneTypeOnAQueue() {
		ConsumerRegistration<Shipped> ship = ConsumerRegistration.of("ship", Shipped.class, HANDLER);
		ConsumerRegistration<Shipped> notify = ConsumerRegistration.of("notify", Shipped.class, HANDLER);
		ConsumerRegistration<Returned> returned = ConsumerRegistration.of("ship", Returned.class, (message, context) -> {
		});

		ConsumerRegistry registry = ConsumerRegistry.of(List.of(ship, notify, returned));

		assertThat(registry.registrations()).containsExactly(ship, returned, notify);
		assertThat(registry.endpoints()).containsOnlyKeys("ship", "notify");
		assertThat(registry.endpoints().get("ship")).containsExactly(ship, returned);
		assertThat(registry.find("notify")).containsSame(notify);
		assertThat(registry.find("other")).isEmpty();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConsumerRegistry.of(List.of(ship, notify, ConsumerRegistration.of("ship", Shipped.class,
					HANDLER))))
			.withMessageStartingWith("Two consumers of queue 'ship' take message type 'test.shipped'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConsumerRegistry.of(List.of(ship, ReceiveEndpoint.on("ship").withConcurrency(1)
				.handle(Returned.class, (message, context) -> {
				})
				.consumers()
				.get(0))))
			.withMessageContaining("were registered on receive endpoints of different settings");
	}

	@Test
	void aDeliveryIsDispatchedByItsTypeThenByItsSupertypesElseToTheFirstConsumer() {
		ConsumerRegistration<Shipped> ship = ConsumerRegistration.of("ship", Shipped.class, HANDLER);
		ConsumerRegistration<Parcel> parcels = ConsumerRegistration.of("ship", Parcel.class, (message, context) -> {
		});
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(ship, parcels));

		assertThat(registry.dispatch("ship", "test.shipped", null)).isSameAs(ship);
		ConsumerRegistration<?> lost = registry.dispatch("ship", "test.lost", "test.parcel",
				Lost.class.getName());
		assertThat(lost.messageType()).isEqualTo("test.lost");
		assertThat(lost.payloadClass()).isEqualTo(Lost.class);
		assertThat(lost.handler()).isSameAs(parcels.handler());
		assertThat(lost.consumerId()).isEqualTo("ship");
		assertThat(registry.dispatch("ship", "test.missing", "test.parcel", Shipped.class.getName()))
			.as("a hint whose type name differs is not used, and an interface cannot be read into")
			.isSameAs(ship);
		assertThat(registry.dispatch("ship", "test.other", null)).as("poison for the processor").isSameAs(ship);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.dispatch("nobody", "test.shipped", null));
	}

	@MessageType("test.returned")
	record Returned(String parcel) {
	}

	@MessageType("test.parcel")
	interface Parcel {

	}

	@MessageType("test.lost")
	record Lost(String parcel) implements Parcel {
	}

	@MessageType("test.shipped")
	record Shipped(String parcel) {
	}

}
