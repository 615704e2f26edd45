package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.SharedOutage;

/**
 * Tells a queue's failures to record its deliveries in the inbox (the database unavailable) as one
 * story, as the relay tells its claims': a warning when they begin, one a minute while they last,
 * an info line when a delivery is recorded again, the failures between at debug. Shared by the
 * queue's consumers, so an outage is one warning, not one per consumer thread and batch.
 */
final class RecordingOutageLog {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private static final Duration WARN_EVERY = Duration.ofMinutes(1);

	private final String queue;

	private final SharedOutage outage;

	RecordingOutageLog(String queue) {
		this(queue, System::nanoTime);
	}

	RecordingOutageLog(String queue, LongSupplier nanoTime) {
		this.queue = queue;
		this.outage = new SharedOutage(WARN_EVERY, nanoTime);
	}

	/**
	 * Deliveries could not be recorded.
	 * @param firstWarning what to say when this begins an outage
	 * @param reason why, in a few words
	 */
	void failed(String firstWarning, String reason) {
		SharedOutage.Failure failure = this.outage.failed();
		switch (failure.told()) {
			case BEGAN -> logger.warn(firstWarning);
			case STILL -> logger.warn("Waybill still cannot record deliveries on " + this.queue + " after "
					+ failure.failingFor() + ", " + failure.failures() + " failed tries: " + reason);
			case AGAIN -> {
				if (logger.isDebugEnabled()) {
					logger.debug("Waybill could not record deliveries on " + this.queue + " again: " + reason);
				}
			}
		}
	}

	/**
	 * A delivery was recorded.
	 * @param startedAt when its processing began ({@link System#nanoTime()}): one that began before
	 * the failures did ends no outage
	 */
	void recorded(long startedAt) {
		SharedOutage.Ended ended = this.outage.recovered(startedAt);
		if (ended != null) {
			logger.info("Waybill records deliveries on " + this.queue + " again, after " + ended.lasted() + " ("
					+ ended.failures() + " failed tries)");
		}
	}

}
