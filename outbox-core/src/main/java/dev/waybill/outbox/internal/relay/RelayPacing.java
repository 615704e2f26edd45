package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * When the relay's workers claim: on a wake-up signal, when a known pending scope falls due, or
 * when the primary worker's poll (one statement every poll interval) finds due scopes; the same
 * poll publishes the backlog figures and now and then sweeps held ordering heads.
 *
 * @since 0.1
 */
final class RelayPacing {

	// Under the relay's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Relay.class);

	private static final int SWEEP_EVERY_POLLS = 10;


	private final OutboxStore store;

	private final RelayWakeUp wakeUp;

	private final Duration pollInterval;

	private final OutboxBacklog backlog;

	/** Whether the relay is started and not stopped. */
	private final BooleanSupplier running;

	// System.nanoTime() values at which known pending scopes (retries, leases, not-before times)
	// fall due; each is consumed once it has passed, so a later one is never lost to an earlier.
	private final ConcurrentSkipListSet<Long> dueTimes = new ConcurrentSkipListSet<>();

	private volatile long statsRefreshedAt;

	private volatile long sweptAt = System.nanoTime();

	/** How many workers have ordering keys in flight that only they may continue. */
	private final AtomicInteger continuing = new AtomicInteger();

	/**
	 * Wakes the other workers while some continue keys: those see every commit's signal and claim
	 * what else is due with their next scopes; the others are wanted only when a claim came back full.
	 */
	private final RelayWakeUp helpWanted = new RelayWakeUp();

	/** The stores besides the default one: the primary worker wakes when one is due. */
	private final RelayLanes lanes;

	RelayPacing(OutboxStore store, RelayWakeUp wakeUp, Duration pollInterval, OutboxBacklog backlog,
			BooleanSupplier running, RelayLanes lanes) {
		this.store = store;
		this.lanes = lanes;
		this.wakeUp = wakeUp;
		this.pollInterval = pollInterval;
		this.backlog = backlog;
		this.running = running;
	}

	/** Makes the first poll after a start read the backlog at once. */
	void started() {
		this.statsRefreshedAt = System.nanoTime() - this.pollInterval.toNanos();
	}

	/**
	 * Reads the backlog when the last reading is older than the poll interval.
	 * @return the backlog figures
	 */
	OutboxStats refreshStatsIfStale() {
		long now = System.nanoTime();
		if (now - this.statsRefreshedAt >= this.pollInterval.toNanos()) {
			this.statsRefreshedAt = now;
			OutboxStats stats = this.store.stats();
			this.backlog.update(stats);
			sweepHeldHeadsIfDue(now);
			if (stats.nextDueIn() != null) {
				dueIn(stats.nextDueIn());
			}
		}
		return this.backlog.current();
	}

	// Ordering's safety net (see OutboxSql.sweep), every ten poll intervals, from the primary worker.
	private void sweepHeldHeadsIfDue(long now) {
		if (now - this.sweptAt >= this.pollInterval.toNanos() * SWEEP_EVERY_POLLS) {
			this.sweptAt = now;
			try {
				if (this.store.promoteHeldHeads() > 0) {
					this.wakeUp.signal();
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Waybill relay could not promote held ordering heads: " + ex);
			}
		}
	}

	/**
	 * Notes that a pending scope falls due after {@code delay}, so the primary worker wakes then
	 * rather than at its next poll.
	 * @param delay from now
	 */
	void dueIn(Duration delay) {
		this.dueTimes.add(System.nanoTime() + Math.max(0, delay.toNanos()));
	}

	/**
	 * Waits for a wake-up signal. The primary worker also returns when a known scope falls due,
	 * when its poll finds due scopes, or when another store's lane is due.
	 * @param primary whether the caller is the primary worker
	 * @return whether to claim (false when stopping)
	 */
	boolean awaitWork(boolean primary) throws InterruptedException {
		while (this.running.getAsBoolean()) {
			RelayWakeUp source = (this.continuing.get() > 0) ? this.helpWanted : this.wakeUp;
			if (source.await(Relay.STOP_CHECK)) {
				return this.running.getAsBoolean();
			}
			if (!primary) {
				continue;
			}
			long now = System.nanoTime();
			if (this.lanes.probeIfDue(now) || this.lanes.anyDue(now)) {
				return true;
			}
			if (!this.dueTimes.isEmpty() && this.dueTimes.first() <= now) {
				this.dueTimes.headSet(now, true).clear();
				return true;
			}
			if (now - this.statsRefreshedAt >= this.pollInterval.toNanos()
					&& refreshStatsIfStale().dueScopes() > 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Waits, for a worker with ordering keys in flight whose next scopes only it may claim, until a
	 * signal is given after the {@code seen}th (a commit, another instance's notification) or the
	 * stop check passes; every such worker sees every signal.
	 * @param seen {@link RelayWakeUp#signals()} before the worker's last claim
	 */
	void awaitWorkBehind(long seen) throws InterruptedException {
		this.wakeUp.awaitSignalAfter(seen, Relay.STOP_CHECK);
	}

	/**
	 * Notes that a worker began or stopped continuing ordering keys.
	 * @param continues whether it continues keys now
	 */
	void continuing(boolean continues) {
		if (continues) {
			this.continuing.incrementAndGet();
		}
		else {
			this.continuing.decrementAndGet();
		}
	}

	/** Tells the workers that more is due than a claim took: one of them claims too. */
	void moreDue() {
		this.wakeUp.signal();
		this.helpWanted.signal();
	}

	/**
	 * Sleeps while running, checking for stop regularly.
	 * @param duration how long
	 */
	void pause(Duration duration) throws InterruptedException {
		long deadline = System.nanoTime() + duration.toNanos();
		long left;
		while (this.running.getAsBoolean() && (left = deadline - System.nanoTime()) > 0) {
			TimeUnit.NANOSECONDS.sleep(Math.min(left, Relay.STOP_CHECK.toNanos()));
		}
	}

}
