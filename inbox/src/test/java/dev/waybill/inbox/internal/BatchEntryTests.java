package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.observation.InboxObservation;

/**
 * {@link BatchEntry}: however often a rolled-back batch runs a delivery again, the listener hears
 * it start once and finish once, with one outcome.
 */
class BatchEntryTests {

	private final ConsumerRegistration<String> consumer = ConsumerRegistration.of("orders", String.class,
			(payload, context) -> {
			});

	private final UUID id = UUID.randomUUID();

	private final InboundMessage message = new InboundMessage(this.id.toString(), "order", "application/json",
			Map.of(), "{}".getBytes(StandardCharsets.UTF_8), null, null, "orders.exchange", "orders");

	private final RecordingListener listener = new RecordingListener();

	private final InboxListeners listeners = new InboxListeners(this.listener);

	@Test
	void aDeliveryRunAgainAfterARollbackIsStartedOnceAndDeliveredOnce() {
		BatchEntry first = entry(null);
		first.rolledBack();
		BatchEntry again = entry(first);
		again.rolledBack();
		BatchEntry last = entry(again);
		last.committed(InboxOutcome.RETRY_SCHEDULED);

		assertThat(this.listener.all()).containsExactly("started " + this.id, "rolled back " + this.id,
				"rolled back " + this.id, "delivered " + this.id + " RETRY_SCHEDULED",
				"finished " + this.id + " RETRY_SCHEDULED");
	}

	@Test
	void aDeliveryThatNeverCommitsFinishesOnceWithoutAnOutcome() {
		BatchEntry first = entry(null);
		entry(first).notCommitted(new IllegalStateException("database gone"));

		assertThat(this.listener.all()).containsExactly("started " + this.id, "finished " + this.id + " null");
	}

	private BatchEntry entry(@Nullable BatchEntry ranBefore) {
		return BatchEntry.of(0, this.consumer, this.message, this.id, "{}", ranBefore, InboxObservation.NONE,
				this.listeners);
	}

}
