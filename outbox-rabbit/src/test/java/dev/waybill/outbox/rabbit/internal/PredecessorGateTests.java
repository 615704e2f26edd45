package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;

class PredecessorGateTests {

	private static final ConsumerRegistration<String> CONSUMER = ConsumerRegistration.of("ledger", String.class,
			(message, context) -> {
			});

	private final List<String> passed = new CopyOnWriteArrayList<>();

	private final List<String> gaps = new CopyOnWriteArrayList<>();

	private final AtomicInteger lookups = new AtomicInteger();

	private final List<String> moved = new CopyOnWriteArrayList<>();

	private final List<Long> movedSince = new CopyOnWriteArrayList<>();

	private volatile boolean moveFails;

	private long tag;

	@Test
	void heldDeliveriesThatFillTheChannelMoveToTheTailInOrderSoThePredecessorCanArrive() {
		long before = System.currentTimeMillis();
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of(), 3);
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));
		assertThat(this.moved).as("room left in the prefetch").isEmpty();
		gate.arrive("k", "c", delivery("d"));

		assertThat(this.moved).containsExactly("b", "c", "d");
		assertThat(this.movedSince).allSatisfy((since) -> assertThat(since).isBetween(before - 1, System.currentTimeMillis()));
		assertThat(gate.holding()).isZero();
		gate.arrive("k", null, delivery("a"));
		assertThat(this.passed).containsExactly("k:a");
		assertThat(this.gaps).isEmpty();
	}

	@Test
	void aMovedCopyWaitsOnFromWhenItWasFirstHeld() {
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of());
		long elevenMinutesAgo = System.currentTimeMillis() - Duration.ofMinutes(11).toMillis();
		gate.arrive("k", "a", delivery("b", Map.of(PredecessorGate.HELD_SINCE_HEADER, elevenMinutesAgo)));

		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> this.passed.contains("k:b"));
		assertThat(this.gaps).containsExactly("b after a");
	}

	@Test
	void deliveriesAMoveFailedForStayHeld() {
		this.moveFails = true;
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of(), 2);
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));

		assertThat(gate.holding()).isEqualTo(2);
		gate.arrive("k", null, delivery("a"));
		assertThat(this.passed).containsExactly("k:a", "k:b", "k:c");
	}

	@Test
	void deliveriesBehindThePredecessorItPassedGoAtOnceWithoutALookup() {
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of());
		gate.arrive("k", null, delivery("a"));
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));
		assertThat(this.passed).containsExactly("k:a", "k:b", "k:c");
		assertThat(this.lookups).hasValue(0);
		assertThat(gate.everHeld()).isFalse();
	}

	@Test
	void aDeliveryAheadOfItsPredecessorAndEverythingBehindItWaitForThePredecessor() {
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of());
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));
		gate.arrive("other", null, delivery("x")); // another key is not held
		assertThat(this.passed).containsExactly("other:x");
		assertThat(gate.holding()).isEqualTo(2);
		gate.arrive("k", null, delivery("a")); // published again, as the head of the key's next run
		assertThat(this.passed).containsExactly("other:x", "k:a", "k:b", "k:c");
		assertThat(gate.holding()).isZero();
		assertThat(gate.everHeld()).isTrue();
		assertThat(this.gaps).isEmpty();
	}

	@Test
	void laterCopiesOfHeldDeliveriesFollowInOrder() {
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of());
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", null, delivery("a"));
		gate.arrive("k", "a", delivery("b"));
		assertThat(this.passed).containsExactly("k:a", "k:b", "k:b");
	}

	@Test
	void aPredecessorTheInboxRecordedLetsItsSuccessorGo() {
		PredecessorGate gate = gate(Duration.ofMinutes(10), Set.of("a"));
		gate.arrive("k", "a", delivery("b"));
		assertThat(this.passed).containsExactly("k:b");
		assertThat(this.lookups).hasValue(1);
	}

	@Test
	void aPredecessorThatNeverComesHoldsTheKeyForTheWaitThenTheRestGoesInOrder() {
		PredecessorGate gate = gate(Duration.ofMillis(300), Set.of());
		long started = System.nanoTime();
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> this.passed.size() == 2);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(this.passed).containsExactly("k:b", "k:c");
		assertThat(this.gaps).containsExactly("b after a");
		assertThat(gate.heldKeys()).isEmpty();
	}

	@Test
	void aClosedGateDropsWhatItHeldAndPassesNothingMore() {
		PredecessorGate gate = gate(Duration.ofMillis(100), Set.of());
		gate.arrive("k", "a", delivery("b"));
		gate.close();
		gate.arrive("k", null, delivery("a"));
		Awaitility.await().pollDelay(Duration.ofMillis(200)).until(() -> true);
		assertThat(this.passed).isEmpty();
		assertThat(this.gaps).isEmpty();
	}

	@Test
	void aFailedLookupLetsTheDeliveryGo() {
		PredecessorGate gate = new PredecessorGate(Duration.ofMinutes(10), "ledger", (held, previous) -> {
			throw new IllegalStateException("database down");
		}, (key, held) -> this.passed.add(key + ":" + held.message().messageId()), (held, previous) -> {
		}, 1000, (deliveries, heldSince) -> {
		});
		gate.arrive("k", "a", delivery("b"));
		assertThat(this.passed).containsExactly("k:b");
	}

	private PredecessorGate gate(Duration wait, Set<String> recorded) {
		return gate(wait, recorded, 1000);
	}

	private PredecessorGate gate(Duration wait, Set<String> recorded, int capacity) {
		return new PredecessorGate(wait, "ledger", (held, previous) -> {
			this.lookups.incrementAndGet();
			return recorded.contains(previous);
		}, (key, held) -> this.passed.add(key + ":" + held.message().messageId()),
				(held, previous) -> this.gaps.add(held.message().messageId() + " after " + previous), capacity,
				(deliveries, heldSince) -> {
					if (this.moveFails) {
						throw new java.io.IOException("not confirmed");
					}
					for (int i = 0; i < deliveries.size(); i++) {
						this.moved.add(deliveries.get(i).message().messageId());
						this.movedSince.add(heldSince.get(i));
					}
				});
	}

	private HeldDelivery delivery(String id) {
		return delivery(id, Map.of());
	}

	private HeldDelivery delivery(String id, Map<String, Object> headers) {
		Envelope envelope = new Envelope(++this.tag, false, "entries", "");
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(id).build();
		InboundMessage message = new InboundMessage(id, "entry", null, headers, new byte[0], null, null, "entries", "");
		return new HeldDelivery(CONSUMER, envelope, properties, new byte[0], message);
	}

}
