package dev.waybill.kernel;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * An outage that several threads report at once (the relay's workers failing to claim, a queue's
 * consumers failing to record): which failure begins it, which are told again once a reminder
 * interval has passed, and which success ends it. {@link OutageLogger} says the words; this keeps
 * the count and the times, without locks. Reminders are reckoned from the outage's start alone,
 * which the thread that began it set in one step: a thread failing at the same moment cannot read
 * a half-begun outage as an interval old.
 */
public final class SharedOutage {

	/** What a failure is to the outage. */
	public enum Told {

		/** It began the outage: tell it. */
		BEGAN,

		/** Another reminder interval passed untold: tell that it goes on. */
		STILL,

		/** One more failure of a told outage: at most a debug line. */
		AGAIN

	}

	/**
	 * A failure, as the outage saw it.
	 * @param told what it is to the outage
	 * @param failingFor how long the outage has lasted
	 * @param failures the failures of the outage, this one included
	 */
	public record Failure(Told told, Duration failingFor, long failures) {
	}

	/**
	 * An outage that ended.
	 * @param lasted how long it lasted
	 * @param failures its failures
	 */
	public record Ended(Duration lasted, long failures) {
	}

	private final long remindEveryNanos;

	private final LongSupplier nanoTime;

	/** When the outage began ({@link System#nanoTime()}), 0 while there is none. */
	private final AtomicLong failingSince = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	/** How many reminder intervals of the outage were told. */
	private final AtomicLong reminders = new AtomicLong();

	/**
	 * Creates the outage's bookkeeping on the system's clock.
	 * @param remindEvery how often an outage that lasts is told again
	 */
	public SharedOutage(Duration remindEvery) {
		this(remindEvery, System::nanoTime);
	}

	/**
	 * Creates the outage's bookkeeping.
	 * @param remindEvery how often an outage that lasts is told again
	 * @param nanoTime the clock, as {@link System#nanoTime()}
	 */
	public SharedOutage(Duration remindEvery, LongSupplier nanoTime) {
		this.remindEveryNanos = remindEvery.toNanos();
		this.nanoTime = nanoTime;
	}

	/**
	 * Returns the clock's time, for {@link #recovered(long)}'s {@code startedAt}.
	 * @return the time in nanoseconds
	 */
	public long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * Counts a failure.
	 * @return what it is to the outage
	 */
	public Failure failed() {
		long now = now();
		long failures = this.failures.incrementAndGet();
		if (this.failingSince.compareAndSet(0, now)) {
			return new Failure(Told.BEGAN, Duration.ZERO, failures);
		}
		long since = this.failingSince.get();
		long intervals = (since == 0) ? 0 : (now - since) / this.remindEveryNanos;
		long told = this.reminders.get();
		Told what = (intervals > told && this.reminders.compareAndSet(told, intervals)) ? Told.STILL : Told.AGAIN;
		return new Failure(what, (since == 0) ? Duration.ZERO : millis(now - since), failures);
	}

	/**
	 * Counts a success: it ends the outage unless it began before the outage did.
	 * @param startedAt when the work that succeeded began, from {@link #now()}
	 * @return the outage it ended, or {@literal null} when it ended none
	 */
	public @Nullable Ended recovered(long startedAt) {
		long since = this.failingSince.get();
		if (since != 0 && startedAt - since > 0 && this.failingSince.compareAndSet(since, 0)) {
			this.reminders.set(0);
			return new Ended(millis(now() - since), this.failures.getAndSet(0));
		}
		return null;
	}

	/**
	 * Returns how long the outage has lasted.
	 * @return the duration, {@literal null} while there is no outage
	 */
	public @Nullable Duration failingFor() {
		long since = this.failingSince.get();
		return (since == 0) ? null : millis(now() - since);
	}

	private static Duration millis(long nanos) {
		return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(nanos));
	}

}
