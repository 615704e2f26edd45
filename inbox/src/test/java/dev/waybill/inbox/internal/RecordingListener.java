package dev.waybill.inbox.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;

/**
 * An {@link InboxListener} that writes down every event it hears, as "event message-id [outcome]",
 * in order.
 */
final class RecordingListener implements InboxListener {

	private final List<String> events = new CopyOnWriteArrayList<>();

	@Override
	public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
		this.events.add("delivered " + message.messageId() + " " + outcome);
	}

	@Override
	public void started(ConsumerRegistration<?> consumer, InboundMessage message) {
		this.events.add("started " + message.messageId());
	}

	@Override
	public void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
			long nanos) {
		this.events.add("finished " + message.messageId() + " " + outcome);
	}

	@Override
	public void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
		this.events.add("poisoned " + message.messageId());
	}

	@Override
	public void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
		this.events.add("rolled back " + message.messageId());
	}

	/** Returns the events heard about one message, in order. */
	List<String> of(InboundMessage message) {
		return this.events.stream().filter((event) -> event.contains(" " + message.messageId())).toList();
	}

	/** Returns every event heard, in order. */
	List<String> all() {
		return List.copyOf(this.events);
	}

}
