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

	private long tag;

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
	void aFailedLookupHoldsTheDeliveryAndItsKeyUntilALookupAnswers() {
		AtomicInteger failuresLeft = new AtomicInteger(3);
		PredecessorGate gate = new PredecessorGate(Duration.ofMinutes(10), "ledger", (held, previous) -> {
			if (failuresLeft.getAndDecrement() > 0) {
				throw new IllegalStateException("database down");
			}
			return true;
		}, (key, held) -> this.passed.add(key + ":" + held.message().messageId()), (held, previous) -> {
		});
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", "b", delivery("c"));
		assertThat(this.passed).as("not passed on while it is not known whether its predecessor was handled").isEmpty();

		Awaitility.await().until(() -> this.passed.size() == 2);
		assertThat(this.passed).containsExactly("k:b", "k:c");
	}

	@Test
	void aPredecessorThatArrivesWhileItsSuccessorsLookupFailsGoesFirst() {
		PredecessorGate gate = new PredecessorGate(Duration.ofMinutes(10), "ledger", (held, previous) -> {
			throw new IllegalStateException("database down");
		}, (key, held) -> this.passed.add(key + ":" + held.message().messageId()), (held, previous) -> {
		});
		gate.arrive("k", "a", delivery("b"));
		gate.arrive("k", null, delivery("a"));
		assertThat(this.passed).containsExactly("k:a", "k:b");
	}

	private PredecessorGate gate(Duration wait, Set<String> recorded) {
		return new PredecessorGate(wait, "ledger", (held, previous) -> {
			this.lookups.incrementAndGet();
			return recorded.contains(previous);
		}, (key, held) -> this.passed.add(key + ":" + held.message().messageId()),
				(held, previous) -> this.gaps.add(held.message().messageId() + " after " + previous));
	}

	private HeldDelivery delivery(String id) {
		Envelope envelope = new Envelope(++this.tag, false, "entries", "");
		AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder().messageId(id).build();
		InboundMessage message = new InboundMessage(id, "entry", null, Map.of(), new byte[0], null, null, "entries", "");
		return new HeldDelivery(CONSUMER, envelope, properties, new byte[0], message);
	}

}
