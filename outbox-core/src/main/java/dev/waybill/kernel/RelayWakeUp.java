package dev.waybill.kernel;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Tells a waiting relay that committed messages are waiting. Signals coalesce: any number of
 * signals before an {@link #await(Duration)} wake it once, and a signal given while nobody waits
 * is kept for the next wait, so none is lost between a relay's poll and its wait.
 * <p>
 * {@link #committed()}, called after a commit that wrote outbox rows, also tells the relays of
 * other instances, through the remote signal given at construction (the auto-configuration's is a
 * PostgreSQL notification).
 *
 * @since 0.1
 */
public final class RelayWakeUp {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition signalled = this.lock.newCondition();

	private final Runnable remoteSignal;

	private boolean pending;

	/** How many signals were given; read by waiters that do not consume them. */
	private long signals;

	/**
	 * Creates a wake-up for this process's relay only.
	 */
	public RelayWakeUp() {
		this(() -> {
		});
	}

	/**
	 * Creates a wake-up that also tells other instances after each commit.
	 * @param remoteSignal run by {@link #committed()}; must return at once
	 */
	public RelayWakeUp(Runnable remoteSignal) {
		this.remoteSignal = Objects.requireNonNull(remoteSignal, "remoteSignal must not be null");
	}

	/**
	 * Signals, after a commit that wrote outbox rows, that work is waiting: wakes this process's
	 * relay and tells the relays of other instances. Nothing is signalled when every scope of the
	 * committing transaction was leased to this process's relay at write time
	 * ({@link DirectDispatchRecord}): it publishes them without a claim, and no other relay may claim them.
	 */
	public void committed() {
		if (DirectDispatchRecord.currentTransactionDispatchedDirectly()) {
			return;
		}
		signal();
		this.remoteSignal.run();
	}

	/**
	 * Signals that work is waiting. Cheap and non-blocking for the caller beyond a short lock.
	 */
	public void signal() {
		this.lock.lock();
		try {
			this.pending = true;
			this.signals++;
			this.signalled.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until a signal arrives or the timeout passes, and consumes the signal.
	 * @param timeout the longest wait
	 * @return whether a signal arrived ({@code false} when the timeout passed)
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	public boolean await(Duration timeout) throws InterruptedException {
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (!this.pending) {
				if (nanos <= 0) {
					return false;
				}
				nanos = this.signalled.awaitNanos(nanos);
			}
			this.pending = false;
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * How many signals were given so far: pass it to {@link #awaitSignalAfter(long, Duration)}.
	 * @return the number of signals given since construction
	 * @since 0.1
	 */
	public long signals() {
		this.lock.lock();
		try {
			return this.signals;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until a signal is given after the {@code seen}th, or the timeout passes, without
	 * consuming it: every caller waiting so sees every signal, and a caller of
	 * {@link #await(Duration)} still gets it.
	 * @param seen what {@link #signals()} returned before the caller looked for work
	 * @param timeout the longest wait
	 * @return whether a signal was given after the {@code seen}th
	 * @throws InterruptedException when the waiting thread is interrupted
	 * @since 0.1
	 */
	public boolean awaitSignalAfter(long seen, Duration timeout) throws InterruptedException {
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (this.signals == seen) {
				if (nanos <= 0) {
					return false;
				}
				nanos = this.signalled.awaitNanos(nanos);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits like {@link #await(Duration)}.
	 * @param timeout the longest wait
	 * @param unit the unit of {@code timeout}
	 * @return whether a signal arrived
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
		return await(Duration.ofNanos(unit.toNanos(timeout)));
	}

}
