package dev.waybill.kernel;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Tells an outage as one story, the same way wherever Waybill meets one (the relay's claims and
 * its broker, a queue's recording of deliveries, the retention and replay workers' passes): a
 * warning when a failure begins it, one more for each minute it lasts, the failures between at
 * debug, and an info line when a success ends it. The words are the caller's ({@link Wording}); the
 * counting is a {@link SharedOutage}'s, so the threads that fail together tell the outage once.
 *
 * @param <F> what the caller knows of one failure
 * @since 0.1
 */
public final class OutageLogger<F> {

	/** How often an outage that lasts is told again. */
	public static final Duration REMIND_EVERY = Duration.ofMinutes(1);

	/**
	 * The words of one kind of outage.
	 *
	 * @param <F> what the caller knows of one failure
	 * @since 0.1
	 */
	public interface Wording<F> {

		/**
		 * Says that the outage began, at WARN.
		 * @param failure the failure that began it
		 * @return the line
		 */
		String began(F failure);

		/**
		 * Returns the stack trace the line of {@link #began} carries.
		 * @param failure the failure that began the outage
		 * @return the exception, or {@literal null} for none
		 */
		default @Nullable Throwable beganTrace(F failure) {
			return null;
		}

		/**
		 * Says that the outage goes on, at WARN.
		 * @param failure the latest failure
		 * @param told how long the outage has lasted and how many failures it had
		 * @return the line
		 */
		String still(F failure, SharedOutage.Failure told);

		/**
		 * Says that another failure happened, at DEBUG.
		 * @param failure the failure
		 * @return the line
		 */
		String again(F failure);

		/**
		 * Returns the stack trace the line of {@link #again} carries.
		 * @param failure the failure
		 * @return the exception, or {@literal null} for none
		 */
		default @Nullable Throwable againTrace(F failure) {
			return null;
		}

		/**
		 * Says that the outage ended, at INFO.
		 * @param ended how long it lasted and how many failures it had
		 * @return the line
		 */
		String ended(SharedOutage.Ended ended);

	}

	private final Log logger;

	private final Wording<F> wording;

	private final SharedOutage outage;

	/**
	 * Creates the logger on the system's clock.
	 * @param logger where the lines go
	 * @param wording what they say
	 */
	public OutageLogger(Log logger, Wording<F> wording) {
		this(logger, wording, System::nanoTime);
	}

	/**
	 * Creates the logger.
	 * @param logger where the lines go
	 * @param wording what they say
	 * @param nanoTime the clock, as {@link System#nanoTime()}
	 */
	public OutageLogger(Log logger, Wording<F> wording, LongSupplier nanoTime) {
		this.logger = Objects.requireNonNull(logger, "logger must not be null");
		this.wording = Objects.requireNonNull(wording, "wording must not be null");
		this.outage = new SharedOutage(REMIND_EVERY, nanoTime);
	}

	/**
	 * Tells a failure: the outage's beginning, a reminder that it goes on, or one more failure.
	 * @param failure the failure
	 */
	public void failed(F failure) {
		SharedOutage.Failure told = this.outage.failed();
		switch (told.told()) {
			case BEGAN -> {
				String line = this.wording.began(failure);
				Throwable trace = this.wording.beganTrace(failure);
				if (trace != null) {
					this.logger.warn(line, trace);
				}
				else {
					this.logger.warn(line);
				}
			}
			case STILL -> this.logger.warn(this.wording.still(failure, told));
			case AGAIN -> {
				if (this.logger.isDebugEnabled()) {
					Throwable trace = this.wording.againTrace(failure);
					if (trace != null) {
						this.logger.debug(this.wording.again(failure), trace);
					}
					else {
						this.logger.debug(this.wording.again(failure));
					}
				}
			}
		}
	}

	/**
	 * Tells a success: it ends the outage unless it began before the outage did.
	 * @param startedAt when the work that succeeded began, from {@link #now()}
	 * @return whether it ended an outage
	 */
	public boolean recovered(long startedAt) {
		SharedOutage.Ended ended = this.outage.recovered(startedAt);
		if (ended == null) {
			return false;
		}
		this.logger.info(this.wording.ended(ended));
		return true;
	}

	/**
	 * Returns the clock's time, for {@link #recovered(long)}'s {@code startedAt}.
	 * @return the time in nanoseconds
	 */
	public long now() {
		return this.outage.now();
	}

	/**
	 * Returns how long the outage has lasted.
	 * @return the duration, {@literal null} while there is no outage
	 */
	public @Nullable Duration failingFor() {
		return this.outage.failingFor();
	}

}
