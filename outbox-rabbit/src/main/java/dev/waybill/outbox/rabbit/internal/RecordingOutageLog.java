package dev.waybill.outbox.rabbit.internal;

import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.OutageLogger;
import dev.waybill.kernel.SharedOutage;

/**
 * Tells a queue's failures to record its deliveries in the inbox (the database unavailable) as one
 * story ({@link OutageLogger}), as the relay tells its claims': a warning when they begin, one a
 * minute while they last, an info line when a delivery is recorded again, the failures between at
 * debug. Shared by the queue's consumers, so an outage is one warning, not one per consumer thread
 * and batch.
 */
final class RecordingOutageLog {

	private static final Log logger = LogFactory.getLog(RabbitReceiveEndpoint.class);

	private final OutageLogger<Failure> outage;

	RecordingOutageLog(String queue) {
		this(queue, System::nanoTime);
	}

	RecordingOutageLog(String queue, LongSupplier nanoTime) {
		this.outage = new OutageLogger<>(logger, new Wording(queue), nanoTime);
	}

	/**
	 * Deliveries could not be recorded.
	 * @param firstWarning what to say when this begins an outage
	 * @param reason why, in a few words
	 */
	void failed(String firstWarning, String reason) {
		this.outage.failed(new Failure(firstWarning, reason));
	}

	/**
	 * A delivery was recorded.
	 * @param startedAt when its processing began ({@link System#nanoTime()}): one that began before
	 * the failures did ends no outage
	 */
	void recorded(long startedAt) {
		this.outage.recovered(startedAt);
	}

	private record Failure(String firstWarning, String reason) {
	}

	private record Wording(String queue) implements OutageLogger.Wording<Failure> {

		@Override
		public String began(Failure failure) {
			return failure.firstWarning();
		}

		@Override
		public String still(Failure failure, SharedOutage.Failure told) {
			return "Waybill still cannot record deliveries on " + this.queue + " after " + told.failingFor() + ", "
					+ told.failures() + " failed tries: " + failure.reason();
		}

		@Override
		public String again(Failure failure) {
			return "Waybill could not record deliveries on " + this.queue + " again: " + failure.reason();
		}

		@Override
		public String ended(SharedOutage.Ended ended) {
			return "Waybill records deliveries on " + this.queue + " again, after " + ended.lasted() + " ("
					+ ended.failures() + " failed tries)";
		}

	}

}
