package dev.waybill.retention.internal.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;

/**
 * The retention worker's meters, fed through the {@link RetentionListener} callbacks.
 *
 * @since 0.1
 */
public final class RetentionMetrics implements MeterBinder, RetentionListener {

	/** Rows purged, tagged {@code table=outbox_state|outbox_message|inbox_state|outbox_message_archive}. */
	public static final String PURGED = "waybill.retention.purged";

	/** Duration of one batch (one transaction). */
	public static final String BATCH_DURATION = "waybill.retention.batch.duration";

	/** When this instance last completed a run that held the retention lock, as time since the epoch. */
	public static final String LAST_RUN = "waybill.retention.last.run";

	/** The tag that names the table. */
	public static final String TABLE_TAG = "table";

	private volatile long lastRunMillis = -1;

	private volatile @Nullable Meters meters;

	@Override
	public void bindTo(MeterRegistry registry) {
		TimeGauge.builder(LAST_RUN, this, TimeUnit.MILLISECONDS, (m) -> (m.lastRunMillis < 0) ? Double.NaN : m.lastRunMillis)
			.description("When this instance last completed a retention run, since the epoch")
			.register(registry);
		this.meters = new Meters(purged(registry, "outbox_state"), purged(registry, "outbox_message"),
				purged(registry, "inbox_state"), purged(registry, "outbox_message_archive"),
				Timer.builder(BATCH_DURATION).description("Duration of one retention batch").register(registry));
	}

	private static Counter purged(MeterRegistry registry, String table) {
		return Counter.builder(PURGED).tag(TABLE_TAG, table).description("Rows purged by retention").baseUnit("rows")
			.register(registry);
	}

	@Override
	public void batchCommitted(RetentionResult batch, Duration duration) {
		Meters meters = this.meters;
		if (meters != null) {
			meters.outboxStates.increment(batch.outboxStates());
			meters.outboxMessages.increment(batch.outboxMessages());
			meters.inboxStates.increment(batch.inboxStates());
			meters.archivedMessages.increment(batch.archivedMessages());
			meters.batchDuration.record(duration);
		}
	}

	@Override
	public void runCompleted(RetentionResult run, Instant finishedAt) {
		this.lastRunMillis = finishedAt.toEpochMilli();
	}

	private record Meters(Counter outboxStates, Counter outboxMessages, Counter inboxStates, Counter archivedMessages,
			Timer batchDuration) {
	}

}
