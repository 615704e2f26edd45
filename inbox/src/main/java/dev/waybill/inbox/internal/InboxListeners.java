package dev.waybill.inbox.internal;

import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;

/**
 * Tells the application's {@link InboxListener} about a delivery, one method per event; a listener
 * that throws is logged and otherwise ignored, so it never changes what was committed.
 *
 * @since 0.1
 */
final class InboxListeners {

	/** The processor's logger: its warnings are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	private final InboxListener listener;

	InboxListeners(InboxListener listener) {
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	void started(ConsumerRegistration<?> consumer, InboundMessage message) {
		try {
			this.listener.started(consumer, message);
		}
		catch (RuntimeException ex) {
			failed(message, "started", ex);
		}
	}

	void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
		try {
			this.listener.delivered(consumer, message, outcome);
		}
		catch (RuntimeException ex) {
			failed(message, String.valueOf(outcome), ex);
		}
	}

	void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
			long nanos) {
		try {
			this.listener.finished(consumer, message, outcome, nanos);
		}
		catch (RuntimeException ex) {
			failed(message, "finished", ex);
		}
	}

	void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
		try {
			this.listener.rolledBack(consumer, message);
		}
		catch (RuntimeException ex) {
			failed(message, "rolled back", ex);
		}
	}

	void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
		try {
			this.listener.poisoned(consumer, message, reason);
		}
		catch (RuntimeException ex) {
			failed(message, "poisoned", ex);
		}
	}

	void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous) {
		try {
			this.listener.predecessorMissing(consumer, message, previous);
		}
		catch (RuntimeException ex) {
			failed(message, "predecessor missing", ex);
		}
	}

	private static void failed(InboundMessage message, String event, RuntimeException ex) {
		logger.warn("InboxListener failed on message " + message.messageId() + " (" + event + "): " + ex, ex);
	}

}
