package dev.waybill.outbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.lang.reflect.Proxy;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

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
		this.lanes.add("a", recording("a"), null);
		this.lanes.add("b", recording("b"), null);
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
	void withAProbeAStoreIsClaimedFromWhenTheProbeFindsScopesDueInItNotAtItsPoll() {
		RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
				new ClaimFailureLog("relay", Duration.ofMillis(200)), Duration.ofMillis(200), this.wakeUp);
		List<Set<String>> asked = new CopyOnWriteArrayList<>();
		Set<String> withWork = new CopyOnWriteArraySet<>();
		lanes.setProbe((names) -> {
			asked.add(Set.copyOf(names));
			return Set.copyOf(withWork);
		});
		lanes.add("a", recording("a"), null);
		lanes.add("b", recording("b"), null);
		long now = System.nanoTime();
		lanes.takeDue(now).claimed(now, 0, 100); // each is due once, when added
		lanes.takeDue(now).claimed(now, 0, 100);
		long polled = now + Duration.ofMillis(250).toNanos();
		assertThat(lanes.anyDue(polled)).as("no claim at its poll").isFalse();
		assertThat(lanes.takeDue(polled)).isNull();

		withWork.add("b");
		assertThat(lanes.probeIfDue(polled)).isTrue();
		assertThat(asked).containsExactly(Set.of("a", "b"));
		assertThat(lanes.takeDue(polled).name()).isEqualTo("b");
		assertThat(lanes.takeDue(polled)).isNull();
		assertThat(lanes.probeIfDue(polled)).as("once a poll interval").isFalse();
		assertThat(asked).hasSize(1);
	}

	@Test
	void aFailingProbeOrAFailingStoreLetsTheStoresClaimTellWhetherItIsBack() {
		RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
				new ClaimFailureLog("relay", Duration.ofMillis(200)), Duration.ofMillis(200), this.wakeUp);
		AtomicBoolean down = new AtomicBoolean(true);
		lanes.setProbe((names) -> {
			if (down.get()) {
				throw new IllegalStateException("database unavailable");
			}
			return Set.of();
		});
		lanes.add("a", recording("a"), null);
		long now = System.nanoTime();
		RelayLane a = lanes.takeDue(now);
		a.failed(new IllegalStateException("database unavailable"));
		long later = System.nanoTime() + Duration.ofMillis(250).toNanos();
		assertThat(lanes.probeIfDue(later)).as("the probe failed: the store's claim tries").isTrue();
		assertThat(lanes.takeDue(later)).isSameAs(a);
		a.failed(new IllegalStateException("still unavailable"));

		down.set(false);
		long afterBackOff = System.nanoTime() + Duration.ofMillis(500).toNanos();
		assertThat(lanes.probeIfDue(afterBackOff)).as("nothing due, but its claims were failing").isTrue();
		RelayLane again = lanes.takeDue(afterBackOff);
		assertThat(again).isSameAs(a);
		again.claimed(afterBackOff, 0, 100);
		assertThat(lanes.failing()).isEmpty();
		assertThat(lanes.probeIfDue(afterBackOff + Duration.ofMillis(250).toNanos())).isFalse();
	}

	@Test
	void theSweepOfHeldHeadsLooksAtAnIdleStoreEveryTenthTimeOnly() {
		this.lanes.add("idle", recording("idle"), null);
		this.lanes.add("busy", recording("busy"), null);
		RelayLane first = this.lanes.takeDue(System.nanoTime());
		RelayLane second = this.lanes.takeDue(System.nanoTime());
		RelayLane busy = first.name().equals("busy") ? first : second;
		OutboxStore routing = this.lanes.routing();
		for (int sweep = 1; sweep <= RelayLane.IDLE_SWEEP_EVERY; sweep++) {
			busy.claimed(System.nanoTime(), 1, 100);
			routing.promoteHeldHeads();
		}
		assertThat(this.calls.stream().filter("busy.promoteHeldHeads"::equals)).hasSize(RelayLane.IDLE_SWEEP_EVERY);
		assertThat(this.calls.stream().filter("idle.promoteHeldHeads"::equals)).hasSize(1);
		assertThat(this.calls.stream().filter("default.promoteHeldHeads"::equals)).hasSize(RelayLane.IDLE_SWEEP_EVERY);
	}

	@Test
	void aStoreWrittenToWakesAWorker() throws InterruptedException {
		this.lanes.add("a", recording("a"), null);
		this.wakeUp.await(Duration.ZERO);
		this.lanes.due("a");
		assertThat(this.wakeUp.await(Duration.ZERO)).isTrue();
	}

	@Test
	void aFullClaimLeavesTheStoreDue() {
		this.lanes.add("a", recording("a"), null);
		RelayLane lane = this.lanes.takeDue(System.nanoTime());
		lane.claimed(System.nanoTime(), 100, 100);
		assertThat(this.lanes.takeDue(System.nanoTime())).isSameAs(lane);
		lane.claimed(System.nanoTime(), 3, 100);
		assertThat(this.lanes.takeDue(System.nanoTime())).isNull();
	}

	@Test
	void aStoreWhoseClaimFailedIsLeftAloneForAPollIntervalThoughWrittenTo() {
		RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
				new ClaimFailureLog("relay", Duration.ofMillis(200)), Duration.ofMillis(200), this.wakeUp);
		lanes.add("a", recording("a"), null);
		RelayLane lane = lanes.takeDue(System.nanoTime());
		lane.failed(new IllegalStateException("database unavailable"));
		lanes.due("a");
		long failedAt = System.nanoTime();
		assertThat(lanes.takeDue(failedAt)).isNull();
		assertThat(lanes.takeDue(failedAt + Duration.ofMillis(250).toNanos())).as("after a poll interval").isSameAs(lane);
	}

	@Test
	void aStoreWhoseDatabaseIsUnavailableIsClaimedFromAgainOnlyOnceItAnswers() {
		RelayLanes lanes = new RelayLanes("relay", "default", recording("default"),
				new ClaimFailureLog("relay", Duration.ofMillis(200)), Duration.ofMillis(200), this.wakeUp);
		AtomicBoolean answers = new AtomicBoolean(false);
		lanes.add("a", recording("a"), () -> {
			if (!answers.get()) {
				throw new CannotGetJdbcConnectionException("still no connection");
			}
		});
		RelayLane lane = lanes.takeDue(System.nanoTime());
		assertThat(lane.failed(new CannotGetJdbcConnectionException("no connection",
				new SQLTransientConnectionException("Connection is not available, request timed out after 1000ms.")))).isTrue();
		long muchLater = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		lanes.due("a");
		assertThat(lanes.takeDue(muchLater)).as("no worker waits on its pool again").isNull();
		assertThat(lane.awaitsRecovery()).isTrue();
		assertThat(lane.recovered()).isFalse();
		answers.set(true);
		assertThat(lane.recovered()).isTrue();
		assertThat(lanes.takeDue(System.nanoTime())).as("claimed from at once").isSameAs(lane);
		assertThat(lane.failed(new IllegalStateException("relation does not exist"))).as("not the database's absence")
			.isFalse();
	}

	@Test
	void writesAboutAClaimedScopeReachTheStoreItsLeaseOwnerNames() {
		this.lanes.add("a", recording("a"), null);
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

	@Test
	void writesToAStoreWhoseDatabaseWentAwayMidFlightFailAtOnceUntilItAnswers() {
		AtomicBoolean down = new AtomicBoolean(true);
		OutboxStore failing = (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(),
				new Class<?>[] { OutboxStore.class }, (proxy, method, args) -> {
					this.calls.add("a." + method.getName());
					if (down.get()) {
						throw new CannotGetJdbcConnectionException("no connection",
								new SQLTransientConnectionException("Connection is not available, request timed out after 1000ms."));
					}
					return (method.getReturnType() == int.class) ? 1 : null;
				});
		this.lanes.add("a", failing, () -> {
			if (down.get()) {
				throw new CannotGetJdbcConnectionException("still no connection");
			}
		});
		RelayLane lane = this.lanes.takeDue(System.nanoTime());
		String owner = lane.owner("relay/0/1");
		OutboxStore routing = this.lanes.routing();
		UUID scope = UUID.randomUUID();
		assertThatExceptionOfType(CannotGetJdbcConnectionException.class)
			.isThrownBy(() -> routing.markPublished(owner, List.of(scope)));
		assertThat(lane.awaitsRecovery()).as("the settler's failed mark tells the relay").isTrue();
		this.calls.clear();
		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> routing.renew(owner, List.of(scope), Duration.ofSeconds(30)))
			.withMessageContaining("Store 'a' is unavailable");
		assertThat(this.calls).as("no wait on its pool").isEmpty();
		assertThat(routing.markPublished(this.lanes.defaultLane().owner("relay/0/2"), List.of(UUID.randomUUID())))
			.as("the default store's writes go on").isZero();

		down.set(false);
		assertThat(lane.recovered()).isTrue();
		assertThat(routing.markPublished(owner, List.of(scope))).isOne();
	}

	private OutboxStore recording(String name) {
		return (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(), new Class<?>[] { OutboxStore.class },
				(proxy, method, args) -> {
					this.calls.add(name + "." + method.getName());
					return (method.getReturnType() == int.class) ? 0 : null;
				});
	}

}
