package dev.waybill.inbox.internal;

import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.observation.InboxObservation;

/**
 * One delivery of a batch, until its outcome committed. It is started once and finished once,
 * however often a rolled-back batch runs it again: the listener hears each event once.
 *
 * @since 0.1
 */
final class BatchEntry {

	final int index;

	final ConsumerRegistration<?> consumer;

	final InboundMessage message;

	final UUID id;

	final Object payload;

	final InboxObservation.Pending observation;

	private final InboxListeners listeners;

	private long started;

	@Nullable InboxOutcome outcome;

	private BatchEntry(int index, ConsumerRegistration<?> consumer, InboundMessage message, UUID id, Object payload,
			InboxObservation.Pending observation, InboxListeners listeners) {
		this.index = index;
		this.consumer = consumer;
		this.message = message;
		this.id = id;
		this.payload = payload;
		this.observation = observation;
		this.listeners = listeners;
	}

	/**
	 * Returns the entry of a delivery that runs in a batch: a new one, started now, or, when it ran
	 * in a batch that rolled back, one that keeps that run's start.
	 */
	static BatchEntry of(int index, ConsumerRegistration<?> consumer, InboundMessage message, UUID id, Object payload,
			@Nullable BatchEntry ranBefore, InboxObservation observation, InboxListeners listeners) {
		if (ranBefore != null) {
			BatchEntry entry = new BatchEntry(index, consumer, message, id, payload, ranBefore.observation, listeners);
			entry.started = ranBefore.started;
			return entry;
		}
		BatchEntry entry = new BatchEntry(index, consumer, message, id, payload, observation.start(consumer, message),
				listeners);
		entry.started = System.nanoTime();
		listeners.started(consumer, message);
		return entry;
	}

	/** Tells the listener that this delivery's processing in a batch rolled back. */
	void rolledBack() {
		this.listeners.rolledBack(this.consumer, this.message);
	}

	/** Tells the listener and the observation the committed outcome, and that the delivery finished. */
	void committed(InboxOutcome outcome) {
		this.listeners.delivered(this.consumer, this.message, outcome);
		finished(outcome);
		this.observation.stop(outcome, null);
	}

	/** Tells the listener and the observation that the delivery finished without an outcome. */
	void notCommitted(RuntimeException failure) {
		finished(null);
		this.observation.stop(null, failure);
	}

	private void finished(@Nullable InboxOutcome outcome) {
		this.listeners.finished(this.consumer, this.message, outcome, System.nanoTime() - this.started);
	}

}
