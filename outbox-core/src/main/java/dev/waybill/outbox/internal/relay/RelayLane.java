package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.DatabaseFailures;

import dev.waybill.outbox.spi.OutboxStore;

/**
 * One store the relay claims from. The default store's lane is claimed as the relay's pacing says
 * (wake-ups, the poll); another store's is looked at when a commit of this process wrote to it,
 * when its last claim came back full, and otherwise once a poll interval, with one claim or, with
 * the relay's {@link StoreProbe}, when the probe finds scopes due in it. A lane whose claim failed
 * because its database is unavailable is claimed from again only once {@link StoreRecovery} sees
 * the database answer (when the lane can check it), so an unavailable store costs the others
 * nothing but that claim; one whose claim failed otherwise waits a poll interval.
 */
final class RelayLane {

	private final String name;

	private final OutboxStore store;

	private final boolean isDefault;

	private final long pollNanos;

	private final ClaimFailureLog failures;

	private final AtomicBoolean due = new AtomicBoolean(true);

	private final AtomicLong nextPollAt = new AtomicLong(System.nanoTime());

	/** Until when ({@link System#nanoTime()}) a lane whose claim failed is left alone. */
	private volatile long backOffUntil = System.nanoTime();

	private volatile boolean retired;

	/** Returns when its database answers, throws why not; {@literal null} when the lane cannot tell but by a claim. */
	private final @Nullable Runnable answers;

	/** Its database was unavailable at the last claim: no worker claims until it answers again. */
	private volatile boolean unavailable;

	/** How many of the relay's sweeps an idle store sits out between two of its own. */
	static final int IDLE_SWEEP_EVERY = 10;

	private volatile boolean claimedSinceSweep;

	/** The sweeping thread only; starts where the name puts it, so that idle stores take turns. */
	private int sweepsSkipped;

	/** Whether its poll is the relay's probe's ({@link RelayLanes#probeIfDue}) rather than a claim. */
	private volatile boolean probed;

	RelayLane(String name, OutboxStore store, boolean isDefault, Duration pollInterval, ClaimFailureLog failures,
			@Nullable Runnable answers) {
		this.name = name;
		this.answers = answers;
		this.store = store;
		this.isDefault = isDefault;
		this.pollNanos = pollInterval.toNanos();
		this.failures = failures;
		this.sweepsSkipped = Math.floorMod(name.hashCode(), IDLE_SWEEP_EVERY);
	}

	String name() {
		return this.name;
	}

	OutboxStore store() {
		return this.store;
	}

	boolean isDefault() {
		return this.isDefault;
	}

	ClaimFailureLog failures() {
		return this.failures;
	}

	/**
	 * Returns the lease owner of a claim from this lane: the default lane's owner as it is, another
	 * lane's with its store's name, so that what settles a scope finds its store by its owner.
	 * @param owner the claim's owner
	 * @return the owner to claim with
	 */
	String owner(String owner) {
		return this.isDefault ? owner : LeaseOwners.ofStore(owner, this.name);
	}

	/** A commit wrote to the lane's store, or its last claim was full: the next worker looks. */
	void markDue() {
		this.due.set(true);
	}

	/**
	 * Takes the lane for a claim when it is due: marked, or its poll time passed, and it is not
	 * backing off; only one worker takes a due lane.
	 * @param now {@link System#nanoTime()}
	 * @return whether the caller claims from it now
	 */
	boolean take(long now) {
		if (!isReachable(now)) {
			return false;
		}
		if (this.due.compareAndSet(true, false)) {
			this.nextPollAt.set(now + this.pollNanos);
			return true;
		}
		if (this.probed) {
			return false;
		}
		long at = this.nextPollAt.get();
		return now - at >= 0 && this.nextPollAt.compareAndSet(at, now + this.pollNanos);
	}

	/**
	 * Makes the lane's poll the probe's, or its own claim again.
	 * @param probed whether the relay's probe polls it
	 */
	void probed(boolean probed) {
		this.probed = probed;
	}

	/**
	 * Whether a claim from it may be tried now: it is not backing off from a failure, nor waiting
	 * for its database to answer, nor retired.
	 * @param now {@link System#nanoTime()}
	 * @return whether it is reachable
	 */
	boolean isReachable(long now) {
		return !this.retired && !this.unavailable && now - this.backOffUntil >= 0;
	}

	/**
	 * Whether {@link #take} would take it now (without taking it).
	 * @param now {@link System#nanoTime()}
	 * @return whether it is due
	 */
	boolean isDue(long now) {
		return isReachable(now) && (this.due.get() || !this.probed && now - this.nextPollAt.get() >= 0);
	}

	/**
	 * A claim from the lane succeeded.
	 * @param startedAt when it began
	 * @param taken how many scopes it took
	 * @param limit how many it could have taken: a full claim leaves more due
	 */
	void claimed(long startedAt, int taken, int limit) {
		this.failures.succeeded(startedAt);
		if (taken > 0) {
			this.claimedSinceSweep = true;
		}
		if (taken >= limit) {
			this.due.set(true);
		}
	}

	/**
	 * Whether the relay's sweep of held ordering heads (its safety net) looks at this store now:
	 * when scopes were claimed from it since the last sweep, else at every
	 * {@value #IDLE_SWEEP_EVERY}th sweep, so that idle stores cost the sweep little. The sweeping
	 * thread only.
	 * @return whether to sweep it
	 */
	boolean sweepDue() {
		if (this.claimedSinceSweep || ++this.sweepsSkipped >= IDLE_SWEEP_EVERY) {
			this.claimedSinceSweep = false;
			this.sweepsSkipped = 0;
			return true;
		}
		return false;
	}

	/**
	 * A claim from the lane failed: it is looked at again after a poll interval, or, when its
	 * database was unavailable and the lane can check it, once it answers.
	 * @param failure why
	 * @return whether the lane now waits for its database to answer ({@link #recovered()})
	 */
	boolean failed(RuntimeException failure) {
		this.failures.failed(failure);
		this.due.set(true); // what was due is still due once it answers
		if (this.answers != null && DatabaseFailures.unavailable(failure, DatabaseFailures.ConnectionState.UNKNOWN)) {
			this.unavailable = true;
			return true;
		}
		this.backOffUntil = System.nanoTime() + this.pollNanos;
		return false;
	}

	/**
	 * Whether the lane waits for its database to answer.
	 * @return whether it does, and is still relayed
	 */
	boolean awaitsRecovery() {
		return this.unavailable && !this.retired;
	}

	/**
	 * Checks whether its database answers again; if so, it is claimed from at once.
	 * @return whether it answered
	 */
	boolean recovered() {
		Runnable answers = this.answers;
		if (answers == null) {
			return false;
		}
		try {
			answers.run();
		}
		catch (RuntimeException ex) {
			this.failures.failed(ex); // one more failed try of the outage its log tells
			return false;
		}
		this.unavailable = false;
		return true;
	}

	/** The store was deregistered: no claim takes from the lane again. */
	void retire() {
		this.retired = true;
	}

	@Override
	public String toString() {
		return this.name;
	}

}
