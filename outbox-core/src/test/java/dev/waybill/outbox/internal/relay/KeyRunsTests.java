package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportException;

/**
 * What a worker tells its next claim about the keys it has in flight: each key from its first
 * unsettled scope, continued while half its window is free and none of it was refused, forgotten
 * once all of it is settled.
 */
class KeyRunsTests {

	private final KeyRuns runs = new KeyRuns();

	@Test
	void aKeyIsContinuedFromItsFirstUnsettledScopeWhileHalfItsWindowIsFree() {
		CompletableFuture<Void> first = publish("A");
		publish("A");
		KeysInFlight.Key key = this.runs.inFlight(4).keys().get(0);
		assertThat(key.continuable()).isTrue();
		UUID firstScope = key.fromScope();

		CompletableFuture<Void> third = publish("A");
		assertThat(this.runs.inFlight(4).keys().get(0).continuable()).as("three of four in flight").isFalse();

		first.complete(null);
		KeysInFlight.Key after = this.runs.inFlight(4).keys().get(0);
		assertThat(after.continuable()).isTrue();
		assertThat(after.fromScope()).as("its first unsettled scope is the second").isNotEqualTo(firstScope);
		assertThat(third).isNotDone();
	}

	@Test
	void aKeyWithARefusedScopeIsNamedButNotContinued() {
		ClaimedScope scope = scope("A");
		this.runs.linked(scope, scope.messages().get(0));
		CompletableFuture<Void> settled = new CompletableFuture<>();
		this.runs.inOrder(scope, CompletableFuture.completedFuture(null),
				() -> List.of(new TransportException(TransportException.Kind.MESSAGE, "nack")));
		this.runs.unsettled(scope, settled);

		KeysInFlight inFlight = this.runs.inFlight(100);
		assertThat(inFlight.keys()).extracting(KeysInFlight.Key::orderingKey).containsExactly("A");
		assertThat(inFlight.keys()).noneMatch(KeysInFlight.Key::continuable);

		settled.complete(null);
		assertThat(this.runs.inFlight(100)).as("all of it settled").isEqualTo(KeysInFlight.NONE);
	}

	/** Publishes a scope of the key, confirmed, and returns what settles it. */
	private CompletableFuture<Void> publish(String key) {
		ClaimedScope scope = scope(key);
		this.runs.linked(scope, scope.messages().get(0));
		CompletableFuture<Void> settled = new CompletableFuture<>();
		this.runs.inOrder(scope, CompletableFuture.completedFuture(null), List::of);
		this.runs.unsettled(scope, settled);
		return settled;
	}

	private static ClaimedScope scope(String key) {
		OutboxMessage message = new OutboxMessage(TimeOrderedUuids.next(), "orders", "", "test.message", "application/json",
				Map.of(PublishOptions.ORDERING_KEY_HEADER, key), "{}".getBytes(StandardCharsets.UTF_8), null, null, null,
				Instant.now(), null);
		return new ClaimedScope(UUID.randomUUID(), Instant.now(), 1, "relay/0/1", Instant.now(), List.of(message));
	}

}
