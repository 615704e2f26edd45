package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistrationTests.Returned;
import dev.waybill.inbox.ConsumerRegistrationTests.Shipped;
import dev.waybill.inbox.spi.ConsumerRegistry;

class ReceiveEndpointTests {

	private static final ConsumerRegistration<Shipped> SHIP = ConsumerRegistration.of("ship", Shipped.class,
			(message, context) -> {
			});

	private static final ConsumerRegistration<Returned> RETURN = ConsumerRegistration.of("ship", Returned.class,
			(message, context) -> {
			});

	@Test
	void theEndpointHoldsItsQueuesSettingsOnceAndItsHandlersInOrder() {
		ReceiveEndpoint endpoint = ReceiveEndpoint.of(List.of(
				SHIP.withConcurrency(2).withPrefetch(8).withQueueArguments(Map.of("x-queue-type", "quorum"))
					.withBindings(List.of(new EndpointBinding("regions", "eu.#")))
					.withPartitionByOrderingKey(true),
				RETURN.withConcurrency(2).withPrefetch(8).withQueueArguments(Map.of("x-queue-type", "quorum"))
					.withBindings(List.of(new EndpointBinding("regions", "eu.#")))
					.withPartitionByOrderingKey(true)));

		assertThat(endpoint.queue()).isEqualTo("ship");
		assertThat(endpoint.errorQueue()).isEqualTo("ship_error");
		assertThat(endpoint.concurrency()).isEqualTo(2);
		assertThat(endpoint.prefetch()).isEqualTo(8);
		assertThat(endpoint.queueArguments()).containsExactly(Map.entry("x-queue-type", "quorum"));
		assertThat(endpoint.bindings()).containsExactly(new EndpointBinding("regions", "eu.#"));
		assertThat(endpoint.partitionByOrderingKey()).isTrue();
		assertThat(endpoint.retry()).isNull();
		assertThat(endpoint.consumers()).extracting(ConsumerRegistration::messageType)
			.containsExactly("test.shipped", "test.returned");
	}

	@Test
	void handlersOfOneEndpointAgreeOnItsSettingsAndTakeOneMessageTypeEach() {
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, RETURN.withPrefetch(1))))
			.withMessageContaining("differ in the endpoint's prefetch (32 and 1)");
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, SHIP)))
			.withMessageContaining("take message type 'test.shipped'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, ConsumerRegistration.of("other", Returned.class,
					(message, context) -> {
					}))))
			.withMessageStartingWith("A receive endpoint has one queue");
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of()));
	}

	@Test
	void theRegistryGroupsRegistrationsIntoEndpointsByQueue() {
		ConsumerRegistration<Shipped> lost = ConsumerRegistration.of("lost", Shipped.class, (message, context) -> {
		});
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(SHIP, lost, RETURN));

		assertThat(registry.receiveEndpoints()).extracting(ReceiveEndpoint::queue).containsExactly("ship", "lost");
		assertThat(registry.receiveEndpoint("ship")).hasValueSatisfying(
				(endpoint) -> assertThat(endpoint.consumers()).containsExactly(SHIP, RETURN));
		assertThat(registry.receiveEndpoint("none")).isEmpty();
	}

}
