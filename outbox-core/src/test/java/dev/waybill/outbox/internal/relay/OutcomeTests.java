package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportException;

/**
 * What the settler's pieces read off an outcome, and how they rank and describe its failures.
 *
 * @since 0.1
 */
class OutcomeTests {

	@Test
	void destinationsNameTheExchangesOnceOrTheQueuesOfTheDefaultExchange() {
		Outcome outcome = confirmed(message("orders", "a", Map.of()), message("orders", "b", Map.of()),
				message("", "billing.orders", Map.of()));

		assertThat(outcome.destinations()).isEqualTo("'orders', queue 'billing.orders'");
	}

	@Test
	void theFirstMessageSaysWhetherTheScopeHasAnOrderingKey() {
		assertThat(confirmed(message("orders", "a", Map.of(PublishOptions.ORDERING_KEY_HEADER, "customer-1")))
			.hasOrderingKey()).isTrue();
		assertThat(confirmed(message("orders", "a", Map.of())).hasOrderingKey()).isFalse();
		assertThat(confirmed().hasOrderingKey()).isFalse();
	}

	@Test
	void aWriteThatMatchedNothingTookEffectOnlyWhenItRetriesOneWhoseAnswerWasLost() {
		Outcome outcome = confirmed(message("orders", "a", Map.of()));
		assertThat(outcome.written(true)).isTrue();
		assertThat(outcome.written(false)).isFalse();

		outcome.unrecordedSince = System.nanoTime();
		assertThat(outcome.retried()).isTrue();
		assertThat(outcome.written(false)).isTrue();
	}

	@Test
	void aPermanentFailureOutranksTheBrokersWhichOutranksTheMessages() {
		TransportException nack = new TransportException(TransportException.Kind.MESSAGE, "nack");
		TransportException lost = new TransportException(TransportException.Kind.UNAVAILABLE, "connection lost");
		TransportException refused = new TransportException(TransportException.Kind.PERMANENT, "refused");

		assertThat(FailedScopes.worst(List.of(nack, lost))).isSameAs(lost);
		assertThat(FailedScopes.worst(List.of(nack, refused, lost))).isSameAs(refused);
		assertThat(FailedScopes.worst(List.of(nack, nack))).isSameAs(nack);
	}

	@Test
	void aFailureOfSeveralMessagesSaysHowManyMoreFailed() {
		ClaimedScope scope = confirmed(message("orders", "a", Map.of()), message("orders", "b", Map.of()),
				message("orders", "c", Map.of())).scope();
		TransportException nack = new TransportException(TransportException.Kind.MESSAGE, "nack");

		assertThat(FailedScopes.describe(nack, 1, scope)).isEqualTo("MESSAGE: nack");
		assertThat(FailedScopes.describe(nack, 2, scope))
			.isEqualTo("MESSAGE: nack (and 1 more of the scope's 3 messages)");
	}

	private static Outcome confirmed(OutboxMessage... messages) {
		Instant now = Instant.now();
		ClaimedScope scope = new ClaimedScope(UUID.randomUUID(), now, 1, "relay/0/1", now.plusSeconds(12),
				List.of(messages));
		return new Outcome(scope, List.of(), now, false);
	}

	private static OutboxMessage message(String destination, String routingKey, Map<String, Object> headers) {
		return new OutboxMessage(UUID.randomUUID(), destination, routingKey, "test.message", "application/json",
				headers, "{}".getBytes(StandardCharsets.UTF_8), null, null, null, Instant.now(), null);
	}

}
