package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.WaybillThreads;

/**
 * Watches for the return of the stores whose database became unavailable, off the relay's
 * workers: a claim that failed so waits for its pool's connection timeout, and a worker that tried
 * each poll interval would spend most of its time waiting there instead of relaying the other
 * stores. One thread, started when a store becomes unavailable and ended when none is, checks each
 * such store once a poll interval (a connection, and whether it answers); one that answers is
 * claimed from at once.
 */
final class StoreRecovery {

	private final String relayId;

	private final Supplier<List<RelayLane>> lanes;

	private final RelayWakeUp wakeUp;

	private final Duration pollInterval;

	private final BooleanSupplier running;

	private final Supplier<WaybillThreads> threads;

	/** Guarded by this. */
	private @Nullable Thread thread;

	StoreRecovery(String relayId, Supplier<List<RelayLane>> lanes, RelayWakeUp wakeUp, Duration pollInterval,
			BooleanSupplier running, Supplier<WaybillThreads> threads) {
		this.relayId = relayId;
		this.lanes = lanes;
		this.wakeUp = wakeUp;
		this.pollInterval = pollInterval;
		this.running = running;
		this.threads = threads;
	}

	/** A store became unavailable: its return is watched for, by the thread that runs or a new one. */
	synchronized void watch() {
		if (this.thread == null) {
			Thread started = this.threads.get().newThread("waybill-relay-store-recovery", this::run);
			started.setDaemon(true);
			this.thread = started;
			started.start();
		}
	}

	/** The relay stops: the watch ends with it. */
	synchronized void stop() {
		Thread current = this.thread;
		if (current != null) {
			current.interrupt();
		}
	}

	private void run() {
		try {
			while (this.running.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
				Thread.sleep(this.pollInterval.toMillis());
				for (RelayLane lane : this.lanes.get()) {
					if (lane.awaitsRecovery() && lane.recovered()) {
						this.wakeUp.signal();
					}
				}
				if (endIfNoneAwaits()) {
					return;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			synchronized (this) {
				if (this.thread == Thread.currentThread()) {
					this.thread = null;
				}
			}
		}
	}

	/** Under the lock {@link #watch} takes, so that a store that fails now is not left unwatched. */
	private synchronized boolean endIfNoneAwaits() {
		for (RelayLane lane : this.lanes.get()) {
			if (lane.awaitsRecovery()) {
				return false;
			}
		}
		this.thread = null;
		return true;
	}

	@Override
	public String toString() {
		return this.relayId + " store recovery";
	}

}
