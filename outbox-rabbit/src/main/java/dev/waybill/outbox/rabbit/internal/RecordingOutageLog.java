package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a queue's failures to record its deliveries in the inbox (the database unavailable) as one
 * story, as the relay tells its claims': a warning when they begin, one a minute while they last,
 * an info line when a delivery is recorded again, the failures between at debug. Shared by the
 * queue's consumers, so an outage is one warning, not one per consumer thread and batch.
 */
final class RecordingOutageLog {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final String queue;

	private final LongSupplier nanoTime;

	/** When the outage began ({@link System#nanoTime()}), 0 while there is none. */
	private final AtomicLong failingSince = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	/** How many minutes of the outage were told. */
	private final AtomicLong reminders = new AtomicLong();

	RecordingOutageLog(String queue) {
		this(queue, System::nanoTime);
	}

	RecordingOutageLog(String queue, LongSupplier nanoTime) {
		this.queue = queue;
		this.nanoTime = nanoTime;
	}

	/**
	 * Deliveries could not be recorded.
	 * @param firstWarning what to say when this begins an outage
	 * @param reason why, in a few words
	 */
	void failed(String firstWarning, String reason) {
		long now = this.nanoTime.getAsLong();
		long failures = this.failures.incrementAndGet();
		if (this.failingSince.compareAndSet(0, now)) {
			logger.warn(firstWarning);
			return;
		}
		// Reckoned from the outage's start alone, which the thread that began it set in one step: a
		// thread failing at the same moment cannot read a half-begun outage as a minute old.
		long since = this.failingSince.get();
		long minutes = (since == 0) ? 0 : (now - since) / WARN_EVERY_NANOS;
		long told = this.reminders.get();
		if (minutes > told && this.reminders.compareAndSet(told, minutes)) {
			logger.warn("Waybill still cannot record deliveries on " + this.queue + " after " + since(now, since) + ", "
					+ failures + " failed tries: " + reason);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Waybill could not record deliveries on " + this.queue + " again: " + reason);
		}
	}

	/**
	 * A delivery was recorded.
	 * @param startedAt when its processing began ({@link System#nanoTime()}): one that began before
	 * the failures did ends no outage
	 */
	void recorded(long startedAt) {
		long since = this.failingSince.get();
		if (since != 0 && startedAt - since > 0 && this.failingSince.compareAndSet(since, 0)) {
			this.reminders.set(0);
			logger.info("Waybill records deliveries on " + this.queue + " again, after "
					+ since(this.nanoTime.getAsLong(), since) + " (" + this.failures.getAndSet(0) + " failed tries)");
		}
	}

	private static String since(long now, long since) {
		return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(now - since)).toString();
	}

}
