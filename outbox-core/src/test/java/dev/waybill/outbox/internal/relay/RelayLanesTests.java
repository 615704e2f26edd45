package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.spi.OutboxStore;

class RelayLanesTests {

	private static final Duration POLL = Duration.ofDays(1);

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private final RelayWakeUp wakeUp = new RelayWakeUp();

	private final RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
			new ClaimFailureLog("relay", POLL), POLL, this.wakeUp);

	@Test
	void eachStoreIsDueOnceWhenAddedThenAtItsPollOrWhenWrittenTo() {
		this.lanes.add("a", recording("a"));
		this.lanes.add("b", recording("b"));
		long now = System.nanoTime();
		RelayLane first = this.lanes.takeDue(now);
		RelayLane second = this.lanes.takeDue(now);
		assertThat(List.of(first.name(), second.name())).containsExactlyInAnyOrder("a", "b");
		assertThat(this.lanes.takeDue(now)).as("both looked at; the next poll is a day away").isNull();
		assertThat(this.lanes.anyDue(now)).isFalse();
		this.lanes.due("b");
		assertThat(this.lanes.anyDue(now)).isTrue();
		assertThat(this.lanes.takeDue(now).name()).isEqualTo("b");
		assertThat(this.lanes.takeDue(now + POLL.toNanos())).as("its poll").isNotNull();
	}

	@Test
	void aStoreWrittenToWakesAWorker() throws InterruptedException {
		this.lanes.add("a", recording("a"));
		this.wakeUp.await(Duration.ZERO);
		this.lanes.due("a");
		assertThat(this.wakeUp.await(Duration.ZERO)).isTrue();
	}

	@Test
	void aFullClaimLeavesTheStoreDue() {
		this.lanes.add("a", recording("a"));
		RelayLane lane = this.lanes.takeDue(System.nanoTime());
		lane.claimed(System.nanoTime(), true);
		assertThat(this.lanes.takeDue(System.nanoTime())).isSameAs(lane);
		lane.claimed(System.nanoTime(), false);
		assertThat(this.lanes.takeDue(System.nanoTime())).isNull();
	}

	@Test
	void aStoreWhoseClaimFailedIsLeftAloneForAPollIntervalThoughWrittenTo() {
		RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
				new ClaimFailureLog("relay", Duration.ofMillis(200)), Duration.ofMillis(200), this.wakeUp);
		lanes.add("a", recording("a"));
		RelayLane lane = lanes.takeDue(System.nanoTime());
		lane.failed(new IllegalStateException("database unavailable"));
		lanes.due("a");
		long failedAt = System.nanoTime();
		assertThat(lanes.takeDue(failedAt)).isNull();
		assertThat(lanes.takeDue(failedAt + Duration.ofMillis(250).toNanos())).as("after a poll interval").isSameAs(lane);
	}

	@Test
	void writesAboutAClaimedScopeReachTheStoreItsLeaseOwnerNames() {
		this.lanes.add("a", recording("a"));
		RelayLane a = this.lanes.takeDue(System.nanoTime());
		String owner = a.owner("relay/0/1");
		assertThat(owner).isEqualTo("relay/0/1@a");
		assertThat(this.lanes.defaultLane().owner("relay/0/2")).isEqualTo("relay/0/2");
		OutboxStore routing = this.lanes.routing();
		routing.markPublished(owner, List.of(UUID.randomUUID()));
		routing.markPublished("relay/0/2", List.of(UUID.randomUUID()));
		this.lanes.remove("a");
		assertThat(this.lanes.takeDue(System.nanoTime() + POLL.toNanos())).as("no longer claimed").isNull();
		routing.release(owner, List.of(UUID.randomUUID()), Duration.ZERO);
		assertThat(this.calls).containsExactly("a.markPublished", "default.markPublished", "a.release");
		assertThatIllegalStateException().isThrownBy(() -> routing.renew("relay/0/3@gone", List.of(), POLL))
			.withMessageContaining("store 'gone'");
	}

	private OutboxStore recording(String name) {
		return (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(), new Class<?>[] { OutboxStore.class },
				(proxy, method, args) -> {
					this.calls.add(name + "." + method.getName());
					return (method.getReturnType() == int.class) ? 0 : null;
				});
	}

}
