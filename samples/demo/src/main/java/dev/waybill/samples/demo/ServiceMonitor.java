package dev.waybill.samples.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.retention.RetentionListener;
import dev.waybill.retention.RetentionResult;

/**
 * Counts what one service's relay, inbox and retention worker did, through their listener hooks:
 * registered as a bean in the service's context, the auto-configurations pick it up.
 */
final class ServiceMonitor implements RelayListener, InboxListener, RetentionListener {

	private final LongAdder published = new LongAdder();

	private final LongAdder deadLettered = new LongAdder();

	private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

	private final LongAdder purged = new LongAdder();

	@Override
	public void published(ClaimedScope scope, Instant confirmedAt) {
		this.published.add(scope.messages().size());
	}

	@Override
	public void deadLettered(ClaimedScope scope, String error) {
		this.deadLettered.add(scope.messages().size());
	}

	@Override
	public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
		// By message type: one receive endpoint (queue) may take several types.
		this.outcomes.computeIfAbsent(key(consumer.messageType(), outcome), (key) -> new LongAdder()).increment();
	}

	@Override
	public void batchCommitted(RetentionResult batch, Duration duration) {
		this.purged.add(batch.total());
	}

	/** Returns the messages the relay published (each publication of a message counts). */
	long published() {
		return this.published.sum();
	}

	/** Returns the messages whose scope the relay dead-lettered. */
	long deadLettered() {
		return this.deadLettered.sum();
	}

	/** Returns the deliveries of messages of {@code messageType} that had {@code outcome}. */
	long outcomes(String messageType, InboxOutcome outcome) {
		LongAdder count = this.outcomes.get(key(messageType, outcome));
		return (count != null) ? count.sum() : 0;
	}

	/** Returns the deliveries of every type that had {@code outcome}. */
	long outcomes(InboxOutcome outcome) {
		String suffix = " " + outcome;
		return this.outcomes.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().endsWith(suffix))
			.mapToLong((entry) -> entry.getValue().sum())
			.sum();
	}

	/** Returns the rows the retention worker deleted, every table together. */
	long purged() {
		return this.purged.sum();
	}

	private static String key(String messageType, InboxOutcome outcome) {
		return messageType + " " + outcome;
	}

}
