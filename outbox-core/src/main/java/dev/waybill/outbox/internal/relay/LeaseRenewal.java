package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.RelayWakeUp;

/**
 * The relay's lease thread: renews the leases it holds every third of a lease, watches its other
 * threads, and gives back what the relay holds when one died or when it stops.
 *
 * @since 0.1
 */
final class LeaseRenewal {

	// Under the relay's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Relay.class);

	private final String relayId;

	private final Leases leases;

	private final ClaimFailureLog claimFailures;

	private final RelayWakeUp wakeUp;

	private final RelayPacing pacing;

	/** Whether the relay is started and not stopped. */
	private final BooleanSupplier running;

	/** The threads of the relay's last start. */
	private final Supplier<List<Thread>> threads;

	/** One of the relay's threads died (an Error): it claims nothing more until it is restarted. */
	private volatile boolean halted;

	LeaseRenewal(String relayId, Leases leases, ClaimFailureLog claimFailures, RelayWakeUp wakeUp, RelayPacing pacing,
			BooleanSupplier running, Supplier<List<Thread>> threads) {
		this.relayId = relayId;
		this.leases = leases;
		this.claimFailures = claimFailures;
		this.wakeUp = wakeUp;
		this.pacing = pacing;
		this.running = running;
		this.threads = threads;
	}

	/** Called on every start: a restarted relay claims again. */
	void started() {
		this.halted = false;
	}

	boolean halted() {
		return this.halted;
	}

	void run() {
		try {
			while (this.running.getAsBoolean()) {
				this.pacing.pause(this.leases.renewInterval());
				Thread dead = deadThread();
				if (dead != null && this.running.getAsBoolean()) {
					halt(dead);
					return;
				}
				if (this.running.getAsBoolean()) {
					this.leases.renew();
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private @Nullable Thread deadThread() {
		for (Thread thread : this.threads.get()) {
			if (thread != Thread.currentThread() && !thread.isAlive()) {
				return thread;
			}
		}
		return null;
	}

	/**
	 * Stops claiming and gives back what the relay holds once one of its threads died: renewing
	 * leases for scopes that no thread will ever record (a dead settler) or publish (a dead worker)
	 * kept them from every other relay for as long as the process lived.
	 */
	private void halt(Thread dead) {
		this.halted = true;
		this.wakeUp.signal();
		int released = this.leases.releaseAll();
		logger.error("Waybill relay " + this.relayId + " stops claiming: its thread " + dead.getName()
				+ " died (logged when it did); it gave back " + released
				+ " scope(s) it held to other relays. Restart the application to relay from this instance again.");
	}

	/**
	 * Gives back every scope the relay still holds, once its threads ended, unless its claims
	 * are failing.
	 * @return how many scopes were given back
	 */
	int giveBackOnStop() {
		Duration failing = this.claimFailures.failingFor();
		if (failing == null) {
			return this.leases.releaseAll();
		}
		if (this.leases.held() > 0) {
			// Giving back would wait out the pool's connection timeout for a database that is away.
			logger.warn("Waybill relay " + this.relayId + " gives back none of the " + this.leases.held()
					+ " scope(s) it holds: its claims have failed for " + failing.toSeconds() + "s ("
					+ this.claimFailures.lastReason() + "); they are delivered again once their leases expire");
			this.leases.forgetAll();
		}
		return 0;
	}

}
