package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistrationTests.Returned;
import dev.waybill.inbox.ConsumerRegistrationTests.Shipped;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.outbox.RetryPolicy;

class ReceiveEndpointTests {

	private static final MessageHandler<Shipped> SHIPPED = (message, context) -> {
	};

	private static final MessageHandler<Returned> RETURNED = (message, context) -> {
	};

	private static final ConsumerRegistration<Shipped> SHIP = ConsumerRegistration.of("ship", Shipped.class, SHIPPED);

	private static final ConsumerRegistration<Returned> RETURN = ConsumerRegistration.of("ship", Returned.class,
			RETURNED);

	@Test
	void theEndpointHoldsItsQueuesSettingsOnceAndItsHandlersInOrder() {
		ReceiveEndpoint endpoint = ReceiveEndpoint.on("ship")
			.withConcurrency(2)
			.withPrefetch(8)
			.withQueueArguments(Map.of("x-queue-type", "quorum"))
			.withBindings(List.of(new EndpointBinding("regions", "eu.#")))
			.withPartitionByOrderingKey(true)
			.handle(Shipped.class, SHIPPED)
			.handle(Returned.class, RETURNED);

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
		assertThat(endpoint.consumers()).extracting(ConsumerRegistration::queue).containsOnly("ship");
	}

	@Test
	void anEndpointOfNoSettingsHasTheDefaults() {
		ReceiveEndpoint endpoint = ReceiveEndpoint.on("ship");

		assertThat(endpoint.concurrency()).isEqualTo(ReceiveEndpoint.DEFAULT_CONCURRENCY).isEqualTo(4);
		assertThat(endpoint.prefetch()).isEqualTo(ReceiveEndpoint.DEFAULT_PREFETCH).isEqualTo(32);
		assertThat(endpoint.queueArguments()).isEmpty();
		assertThat(endpoint.bindings()).isEmpty();
		assertThat(endpoint.neverRetry()).isEmpty();
		assertThat(endpoint.ignore()).isEmpty();
		assertThat(endpoint.consumers()).isEmpty();
	}

	@Test
	void itsHandlersFollowTheSettingsSetAfterThemAndTheOriginalStaysAsItWas() {
		EndpointRetry retry = new EndpointRetry(RetryPolicy.defaults(), 1);
		ReceiveEndpoint original = ReceiveEndpoint.on("ship").handle(Shipped.class, SHIPPED);
		ReceiveEndpoint changed = original.withRetry(retry)
			.withNeverRetry(List.of(IllegalStateException.class))
			.withIgnore(List.of(UnsupportedOperationException.class));

		ConsumerRegistration<?> handler = changed.consumers().get(0);
		assertThat(handler.retry()).isSameAs(retry);
		assertThat(handler.neverRetry()).containsExactly(IllegalStateException.class);
		assertThat(handler.ignore()).containsExactly(UnsupportedOperationException.class);
		assertThat(handler.handler()).isSameAs(SHIPPED);
		assertThat(original.retry()).isNull();
		assertThat(original.consumers().get(0).retry()).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> original.withConcurrency(0))
			.withMessage("concurrency must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> original.withPrefetch(-1))
			.withMessage("prefetch must be at least 1, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.on("amq.ship"))
			.withMessageStartingWith("Queue 'amq.ship' ");
	}

	@Test
	void anEndpointTakesOneHandlerPerMessageType() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ReceiveEndpoint.on("ship").handle(Shipped.class, SHIPPED).handle(Shipped.class, SHIPPED))
			.withMessageStartingWith("Two consumers of queue 'ship' take message type 'test.shipped'");
	}

	@Test
	void registrationsMadeAloneFormAnEndpointOfOneQueueAndOneTypeEach() {
		assertThat(ReceiveEndpoint.of(List.of(SHIP, RETURN)).consumers()).containsExactly(SHIP, RETURN);
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, SHIP)))
			.withMessageContaining("take message type 'test.shipped'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, ConsumerRegistration.of("other", Returned.class,
					RETURNED))))
			.withMessageStartingWith("A receive endpoint has one queue");
		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of()));
	}

	@Test
	void registrationsOfEndpointsOfDifferentSettingsDoNotFormOne() {
		ConsumerRegistration<?> quick = ReceiveEndpoint.on("ship").withPrefetch(1).handle(Returned.class, RETURNED)
			.consumers().get(0);

		assertThatIllegalArgumentException().isThrownBy(() -> ReceiveEndpoint.of(List.of(SHIP, quick)))
			.withMessageStartingWith("The consumers of queue 'ship' were registered on receive endpoints of "
					+ "different settings");
	}

	@Test
	void theRegistryGroupsRegistrationsIntoEndpointsByQueue() {
		ConsumerRegistration<Shipped> lost = ConsumerRegistration.of("lost", Shipped.class, SHIPPED);
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(SHIP, lost, RETURN));

		assertThat(registry.receiveEndpoints()).extracting(ReceiveEndpoint::queue).containsExactly("ship", "lost");
		assertThat(registry.receiveEndpoint("ship")).hasValueSatisfying(
				(endpoint) -> assertThat(endpoint.consumers()).containsExactly(SHIP, RETURN));
		assertThat(registry.receiveEndpoint("none")).isEmpty();
	}

	@Test
	void theRegistryOfEndpointsTakesEachQueueOnceAndEachWithAHandler() {
		ReceiveEndpoint ship = ReceiveEndpoint.on("ship").withConcurrency(1).handle(Shipped.class, SHIPPED);
		ReceiveEndpoint lost = ReceiveEndpoint.on("lost").handle(Shipped.class, SHIPPED);

		ConsumerRegistry registry = ConsumerRegistry.ofEndpoints(List.of(ship, lost));

		assertThat(registry.receiveEndpoints()).containsExactly(ship, lost);
		assertThat(registry.registrations()).containsExactly(ship.consumers().get(0), lost.consumers().get(0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConsumerRegistry.ofEndpoints(List.of(ship,
					ReceiveEndpoint.on("ship").handle(Returned.class, RETURNED))))
			.withMessageStartingWith("Two receive endpoints consume queue 'ship'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConsumerRegistry.ofEndpoints(List.of(ReceiveEndpoint.on("empty"))))
			.withMessageStartingWith("The receive endpoint of queue 'empty' has no handler");
	}

}
