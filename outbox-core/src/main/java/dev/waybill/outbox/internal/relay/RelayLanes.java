package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The stores the relay claims from, one {@link RelayLane} each, served by the relay's workers in
 * turn: no thread and no held connection per store, so an idle store costs one claim per poll
 * interval. A store's claims are fenced by lease owners that name it, so every later write about a
 * scope (renew, mark, retry, release) reaches the store the scope was claimed from
 * ({@link #routing()}), also after the store was removed.
 */
final class RelayLanes {

	private final String relayId;

	private final Duration pollInterval;

	private final RelayWakeUp wakeUp;

	private final RelayLane defaultLane;

	private final Map<String, RelayLane> byName = new ConcurrentHashMap<>();

	/** The lanes of removed stores, kept so that what the relay still holds of them is settled there. */
	private final Map<String, RelayLane> retired = new ConcurrentHashMap<>();

	private volatile List<RelayLane> others = List.of();

	private final AtomicInteger cursor = new AtomicInteger();

	private final OutboxStore routing;

	private final long pollNanos;

	private volatile @Nullable StoreProbe probe;

	private volatile @Nullable StoreRecovery recovery;

	private final AtomicLong nextProbeAt = new AtomicLong(System.nanoTime());

	RelayLanes(String relayId, String defaultName, OutboxStore defaultStore, ClaimFailureLog defaultFailures,
			Duration pollInterval, RelayWakeUp wakeUp) {
		this.relayId = relayId;
		this.pollInterval = pollInterval;
		this.wakeUp = wakeUp;
		this.pollNanos = pollInterval.toNanos();
		this.defaultLane = new RelayLane(defaultName, defaultStore, true, pollInterval, defaultFailures, null);
		this.routing = new LaneRoutingStore(this);
	}

	RelayLane defaultLane() {
		return this.defaultLane;
	}

	/**
	 * Returns what settles, renews and gives back scopes in the store each was claimed from, found
	 * by its lease owner; what concerns no claim (the backlog figures, redrives) is the default
	 * store's.
	 * @return the routing store
	 */
	OutboxStore routing() {
		return this.routing;
	}

	/**
	 * Adds a store to claim from, due at once; a store added already stays as it is.
	 * @param name the store's name
	 * @param store the store
	 */
	synchronized void add(String name, OutboxStore store, @Nullable Runnable answers) {
		if (!LeaseOwners.canName(name) || name.equals(this.defaultLane.name())) {
			throw new IllegalArgumentException("'" + name + "' cannot name another store of the relay");
		}
		if (this.byName.containsKey(name)) {
			return;
		}
		RelayLane lane = new RelayLane(name, store, false, this.pollInterval,
				new ClaimFailureLog(this.relayId + " store '" + name + "'", this.pollInterval, answers != null), answers);
		lane.probed(this.probe != null);
		this.retired.remove(name);
		this.byName.put(name, lane);
		List<RelayLane> others = new ArrayList<>(this.others);
		others.add(lane);
		this.others = List.copyOf(others);
		this.wakeUp.signal();
	}

	/**
	 * Returns the lanes of the stores besides the default one.
	 * @return the lanes, as of now
	 */
	List<RelayLane> others() {
		return this.others;
	}

	/** The relay starts: the stores that were unavailable when it stopped are watched again. */
	void started() {
		StoreRecovery recovery = this.recovery;
		if (recovery != null && this.others.stream().anyMatch(RelayLane::awaitsRecovery)) {
			recovery.watch();
		}
	}

	/**
	 * Sets what watches for the return of an unavailable store.
	 * @param recovery the watch
	 */
	void setRecovery(StoreRecovery recovery) {
		this.recovery = recovery;
	}

	/**
	 * A claim from another store failed: the store backs off, or waits for its database to
	 * answer, which is then watched for.
	 * @param lane the store's lane
	 * @param failure why
	 */
	void failed(RelayLane lane, RuntimeException failure) {
		StoreRecovery recovery = this.recovery;
		if (lane.failed(failure) && recovery != null) {
			recovery.watch();
		}
	}

	/**
	 * Stops claiming from a store; what the relay holds of it is still settled there.
	 * @param name the store's name
	 */
	synchronized void remove(String name) {
		RelayLane lane = this.byName.remove(name);
		if (lane != null) {
			lane.retire();
			this.retired.put(name, lane);
			List<RelayLane> others = new ArrayList<>(this.others);
			others.remove(lane);
			this.others = List.copyOf(others);
		}
	}

	/**
	 * Polls the other stores through a probe (one statement per database) rather than with a claim
	 * each: a store is then claimed from when the probe finds scopes due in it, when this process
	 * wrote to it, or while its claims come back full.
	 * @param probe the probe
	 */
	void setProbe(StoreProbe probe) {
		this.probe = probe;
		for (RelayLane lane : this.others) {
			lane.probed(true);
		}
	}

	/**
	 * Once a poll interval (the primary worker calls it): asks the probe which other stores have
	 * scopes due, and marks those due. A probe that fails marks every store it asked about due, so
	 * that their claims fail, each logged under its store and backing off on its own.
	 * @param now {@link System#nanoTime()}
	 * @return whether a store was marked due
	 */
	boolean probeIfDue(long now) {
		StoreProbe probe = this.probe;
		long at = this.nextProbeAt.get();
		if (probe == null || now - at < 0 || !this.nextProbeAt.compareAndSet(at, now + this.pollNanos)) {
			return false;
		}
		Set<String> names = new LinkedHashSet<>();
		for (RelayLane lane : this.others) {
			if (lane.isReachable(now)) {
				names.add(lane.name());
			}
		}
		if (names.isEmpty()) {
			return false;
		}
		Set<String> due;
		try {
			due = probe.due(names);
		}
		catch (RuntimeException ex) {
			due = names;
		}
		boolean marked = false;
		for (RelayLane lane : this.others) {
			// A store whose claims failed is claimed from again, due or not: its claim tells
			// whether it is back, which the outage log and the health say.
			if (due.contains(lane.name()) || names.contains(lane.name()) && lane.failures().failingFor() != null) {
				lane.markDue();
				marked = true;
			}
		}
		return marked;
	}

	/**
	 * A commit of this process wrote to a store: its lane is due, and a worker wakes for it.
	 * @param name the store's name
	 */
	void due(String name) {
		RelayLane lane = this.byName.get(name);
		if (lane != null) {
			lane.markDue();
			this.wakeUp.signal();
		}
	}

	/**
	 * Takes the next due lane other than the default one, in turn, so that a busy store does not
	 * keep the others waiting.
	 * @param now {@link System#nanoTime()}
	 * @return the lane to claim from, or {@literal null} when none is due
	 */
	@Nullable RelayLane takeDue(long now) {
		List<RelayLane> others = this.others;
		int size = others.size();
		if (size == 0) {
			return null;
		}
		int start = Math.floorMod(this.cursor.getAndIncrement(), size);
		for (int i = 0; i < size; i++) {
			RelayLane lane = others.get((start + i) % size);
			if (lane.take(now)) {
				return lane;
			}
		}
		return null;
	}

	/**
	 * Whether a lane other than the default one is due.
	 * @param now {@link System#nanoTime()}
	 * @return whether one is
	 */
	boolean anyDue(long now) {
		for (RelayLane lane : this.others) {
			if (lane.isDue(now)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns the lanes, the default first.
	 * @return the lanes claimed from
	 */
	List<RelayLane> all() {
		List<RelayLane> all = new ArrayList<>(this.others.size() + 1);
		all.add(this.defaultLane);
		all.addAll(this.others);
		return all;
	}

	/**
	 * Returns the stores other than the default one whose claims fail now, with how long and why.
	 * @return by store name, in the order they were added; empty while every claim works
	 */
	Map<String, String> failing() {
		Map<String, String> failing = new LinkedHashMap<>();
		for (RelayLane lane : this.others) {
			Duration failingFor = lane.failures().failingFor();
			if (failingFor != null) {
				failing.put(lane.name(), "failing for " + failingFor + ": " + lane.failures().lastReason());
			}
		}
		return failing;
	}

	/**
	 * Returns the lane a claim's scopes came from.
	 * @param leaseOwner the claim's lease owner
	 * @return its lane
	 * @throws IllegalStateException when the owner names a store the relay never claimed from
	 */
	RelayLane laneOf(String leaseOwner) {
		String name = LeaseOwners.storeOf(leaseOwner);
		if (name.equals(this.defaultLane.name())) {
			return this.defaultLane;
		}
		RelayLane lane = this.byName.get(name);
		if (lane == null) {
			lane = this.retired.get(name);
		}
		if (lane == null) {
			throw new IllegalStateException("Lease owner " + leaseOwner + " names store '" + name
					+ "', which this relay never claimed from");
		}
		return lane;
	}

}
